"""Which precision (gemmtune_precision_t) a call runs, from its operands' dtype, the caller's request
and torch's TF32 setting, what dtype its result has, and in which type the library writes C
(gemmtune_c_type_t). Pure Python over dtype names ("float32", "bfloat16", "float16"), so the rules
are tested without a GPU or torch.

The rules follow torch.mm, so that a model moved to gemmtune computes what it computed before:
- float32 operands run fp32 (cublasSgemm's contract), or tf32 where torch's own matmul would
  (torch.backends.cuda.matmul.allow_tf32, i.e. torch.set_float32_matmul_precision("high")).
  precision="fp32", "tf32" or "3xtf32" asks for one explicitly; "3xtf32" is FP32-accurate (never
  less accurate than cublasSgemm) and runs on the tensor cores where the tuner found it faster.
- bfloat16 and float16 operands run bf16 and fp16 (FP32 accumulation); a request must name the same.
- The result has the operands' dtype, as torch.mm's has, unless out_dtype=torch.float32 asks for the
  FP32 C. A 16-bit result is written by the library itself in that type (C_OPERAND_TYPE: FP32 sums,
  each element rounded once, as cublasGemmEx with a 16-bit Ctype and torch.mm give), so it is chosen
  from the results' c16 entries ("c": "bf16" / "fp16"), which are tuned apart from FP32-C ones, and
  recorded as c16 problems. An FP32 C (C_FP32) serves float32 results, and a 16-bit result that a
  float32 c is added to (see c_type).
Both operands have one dtype; anything else is a TypeError naming the argument.
"""

from __future__ import annotations

from typing import Optional

# gemmtune_precision_t, by name.
PRECISIONS = {"fp32": 0, "3xtf32": 1, "tf32": 2, "bf16": 3, "fp16": 4}
FP32 = 0
# gemmtune_c_type_t: C in FP32, or in the operands' own 16-bit type (bf16 and fp16 only).
C_FP32, C_OPERAND_TYPE = 0, 1
# The precisions an operand dtype may run.
DTYPE_PRECISIONS = {"float32": ("fp32", "tf32", "3xtf32"), "bfloat16": ("bf16",), "float16": ("fp16",)}


def dtype_name(dtype) -> str:
    """"float32" for torch.float32 (and for a string already a name)."""
    return str(dtype).rsplit(".", 1)[-1]


def check_operand_dtypes(name: str, dtypes) -> str:
    """The operands' common dtype name; dtypes: (argument, dtype) pairs, the first the reference.
    TypeError naming the first argument whose dtype is unsupported or differs from the first's."""
    first_argument, first = None, None
    for argument, dtype in dtypes:
        if dtype is None:
            continue
        d = dtype_name(dtype)
        if d not in DTYPE_PRECISIONS:
            raise TypeError(f"{name}: argument '{argument}' is torch.{d}; gemmtune supports torch.float32, "
                            f"torch.bfloat16 and torch.float16")
        if first is None:
            first_argument, first = argument, d
        elif d != first:
            raise TypeError(f"{name}: argument '{argument}' is torch.{d} but argument '{first_argument}' is "
                            f"torch.{first}; the operands must have one dtype")
    return first


def resolve(name: str, operand_dtype: str, requested: Optional[str], tf32_allowed: bool) -> int:
    """The gemmtune_precision_t value for operands of dtype operand_dtype (a name from
    check_operand_dtypes) and precision `requested` (None: as torch.mm would compute)."""
    allowed = DTYPE_PRECISIONS[operand_dtype]
    if requested is None:
        if operand_dtype == "float32":
            return PRECISIONS["tf32"] if tf32_allowed else FP32
        return PRECISIONS[allowed[0]]
    if not isinstance(requested, str):
        raise TypeError(f"{name}: argument 'precision' must be a str or None, got {type(requested).__name__}")
    key = requested.lower()
    if key not in PRECISIONS:
        raise ValueError(f"{name}: argument 'precision' is {requested!r}; expected one of "
                         f"{', '.join(PRECISIONS)} (or None: as torch.mm)")
    if key not in allowed:
        raise TypeError(f"{name}: argument 'precision' is {requested!r} but the operands are torch.{operand_dtype}, "
                        f"which run {' or '.join(repr(p) for p in allowed)}")
    return PRECISIONS[key]


def output_dtype(name: str, operand_dtype: str, out_dtype) -> str:
    """The result's dtype name: the operands' (None), or float32 (the library's C, no cast)."""
    if out_dtype is None:
        return operand_dtype
    d = dtype_name(out_dtype)
    if d not in (operand_dtype, "float32"):
        raise TypeError(f"{name}: argument 'out_dtype' is torch.{d}; for torch.{operand_dtype} operands it may be "
                        f"torch.{operand_dtype} or torch.float32")
    return d


def torch_precision(operand_dtype: str, tf32_allowed: bool) -> int:
    """What torch's own matmul runs for these operands (the same numbers as ours when equal)."""
    return resolve("", operand_dtype, None, tf32_allowed)


def c_type(operand_dtype: str, result_dtype: str, added_dtype=None) -> int:
    """The gemmtune_c_type_t a call passes: C_OPERAND_TYPE (the c16 entries, the result written in the
    operands' 16-bit type, no cast) where the result has the operands' 16-bit dtype and whatever C
    starts as (addmm's c with beta != 0, a bias; None: nothing) has it too, so the library reads it
    as 16-bit exactly as cublasGemmEx reads a 16-bit C. Else C_FP32: float32 operands, out_dtype
    float32, or a float32 c added to a 16-bit result, which the FP32 C takes whole (rounding c to 16
    bits first would drop its low bits); that result is the FP32 C rounded once, by a cast."""
    if operand_dtype == "float32" or result_dtype != operand_dtype:
        return C_FP32
    if added_dtype is not None and dtype_name(added_dtype) != operand_dtype:
        return C_FP32
    return C_OPERAND_TYPE
