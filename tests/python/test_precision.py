"""Operand dtypes and precision= -> gemmtune_precision_t and the result's dtype, pure Python (no torch,
no GPU): the rules every call on tensors or CuPy arrays follows (gemmtune/_precision.py)."""

import pytest

from gemmtune import _precision as P

FP32, TF32X3, TF32, BF16, FP16 = 0, 1, 2, 3, 4


def test_values_match_the_c_api(root):
    assert P.PRECISIONS == {"fp32": FP32, "3xtf32": TF32X3, "tf32": TF32, "bf16": BF16, "fp16": FP16}
    header = (root / "runtime" / "include" / "gemmtune" / "gemmtune.h").read_text()
    assert f"GEMMTUNE_C_FP32 = {P.C_FP32}," in header
    assert f"GEMMTUNE_C_OPERAND_TYPE = {P.C_OPERAND_TYPE} }}" in header


@pytest.mark.parametrize("dtype, requested, tf32_allowed, expected", [
    ("float32", None, False, FP32),       # torch.mm's default: no TF32
    ("float32", None, True, TF32),        # allow_tf32 / set_float32_matmul_precision("high"): as torch.mm
    ("float32", "fp32", True, FP32),      # an explicit request wins over torch's setting
    ("float32", "3xtf32", False, TF32X3),
    ("float32", "3XTF32", False, TF32X3),  # names are case-insensitive
    ("float32", "tf32", False, TF32),
    ("bfloat16", None, True, BF16),       # 16-bit operands: their precision, whatever TF32 says
    ("bfloat16", "bf16", False, BF16),
    ("float16", None, False, FP16),
    ("float16", "fp16", False, FP16),
])
def test_resolve(dtype, requested, tf32_allowed, expected):
    assert P.resolve("f", dtype, requested, tf32_allowed) == expected


@pytest.mark.parametrize("dtype, requested, error, match", [
    ("float32", "bf16", TypeError, "argument 'precision' is 'bf16' but the operands are torch.float32"),
    ("bfloat16", "fp16", TypeError, "argument 'precision' is 'fp16' but the operands are torch.bfloat16"),
    ("bfloat16", "3xtf32", TypeError, "which run 'bf16'"),
    ("float16", "tf32", TypeError, "argument 'precision'"),
    ("float32", "fp64", ValueError, "argument 'precision' is 'fp64'; expected one of fp32, 3xtf32"),
    ("float32", 3, TypeError, "argument 'precision' must be a str or None"),
])
def test_resolve_refuses(dtype, requested, error, match):
    with pytest.raises(error, match=match):
        P.resolve("gemmtune.mm", dtype, requested, False)


def test_operand_dtypes():
    assert P.check_operand_dtypes("f", [("a", "torch.bfloat16"), ("b", "bfloat16")]) == "bfloat16"
    assert P.check_operand_dtypes("f", [("input", "float32"), ("weight", "float32"), ("bias", None)]) == "float32"
    with pytest.raises(TypeError, match="argument 'b' is torch.float16 but argument 'a' is torch.bfloat16"):
        P.check_operand_dtypes("f", [("a", "bfloat16"), ("b", "float16")])
    with pytest.raises(TypeError, match="argument 'bias' is torch.float32 but argument 'input' is torch.float16"):
        P.check_operand_dtypes("f", [("input", "float16"), ("weight", "float16"), ("bias", "float32")])
    with pytest.raises(TypeError, match="argument 'a' is torch.float64; gemmtune supports torch.float32"):
        P.check_operand_dtypes("f", [("a", "float64"), ("b", "float64")])
    with pytest.raises(TypeError, match="argument 'b' is torch.int8"):
        P.check_operand_dtypes("f", [("a", "float32"), ("b", "int8")])


@pytest.mark.parametrize("operands, out_dtype, expected", [
    ("bfloat16", None, "bfloat16"),   # as torch.mm: the operands' dtype (the library's 16-bit C)
    ("bfloat16", "torch.float32", "float32"),  # the library's FP32 C as it is
    ("float16", "float16", "float16"),
    ("float32", None, "float32"),
    ("float32", "float32", "float32"),
])
def test_output_dtype(operands, out_dtype, expected):
    assert P.output_dtype("f", operands, out_dtype) == expected


def test_output_dtype_refuses_others():
    with pytest.raises(TypeError, match="argument 'out_dtype' is torch.float16; for torch.bfloat16 operands"):
        P.output_dtype("f", "bfloat16", "float16")
    with pytest.raises(TypeError, match="argument 'out_dtype' is torch.bfloat16"):
        P.output_dtype("f", "float32", "bfloat16")


def test_torch_precision():
    assert P.torch_precision("float32", False) == FP32
    assert P.torch_precision("float32", True) == TF32
    assert P.torch_precision("float16", True) == FP16


@pytest.mark.parametrize("operands, result, added, expected", [
    ("bfloat16", "bfloat16", None, P.C_OPERAND_TYPE),  # the c16 problem: C written in bfloat16, no cast
    ("float16", "float16", None, P.C_OPERAND_TYPE),
    ("bfloat16", "bfloat16", "bfloat16", P.C_OPERAND_TYPE),  # addmm's c or a bias: read as 16-bit, exactly
    ("float16", "float16", "torch.float16", P.C_OPERAND_TYPE),
    ("bfloat16", "bfloat16", "float32", P.C_FP32),  # a float32 c: kept whole in an FP32 C, then one rounding
    ("bfloat16", "float32", None, P.C_FP32),  # out_dtype=float32: the FP32-C problem
    ("float16", "float32", "float16", P.C_FP32),
    ("float32", "float32", None, P.C_FP32),  # float32 operands: FP32 C, whatever the precision
    ("float32", "float32", "float32", P.C_FP32),
])
def test_c_type(operands, result, added, expected):
    assert P.c_type(operands, result, added) == expected
