"""The eager CUDA path for torch tensors: checks, the stride mapping, the precision and the C type
(_precision: float32 as fp32, tf32 where torch would use TF32, or as asked; bfloat16 and float16 as
bf16 and fp16), cached per shapes, strides, dtypes and devices (a cached plan is a passed check); a
fresh contiguous output in the result's dtype and one library call on the current stream into it:
- float32 results (float32 operands, or out_dtype=torch.float32): gemmtune_run_gemm_problem, FP32 C;
- 16-bit results (bfloat16 or float16 operands, as torch.mm returns them): gemmtune_run_gemm_problem_ex
  with GEMMTUNE_C_OPERAND_TYPE, the library writing C in that dtype (FP32 sums, each element rounded
  once, as cublasGemmEx with a 16-bit Ctype), chosen from the results' c16 entries; no cast. The one
  exception: addmm of a float32 c into a 16-bit result adds c to an FP32 C and casts (_precision.c_type).
The registered op's CUDA kernel (_torch_ops) and gemmtune.mm outside autograd and compilation both run
this, so the op and the direct call can differ only in the dispatcher's cost.

Where the library's choice is cuBLAS, torch's own call makes the same cuBLAS call at less host cost
(the choice is asked once per plan, with the C type the call would pass: gemmtune_choose_gemm_ex with
GEMMTUNE_C_OPERAND_TYPE for a 16-bit result; reload() empties the plans):
- float32 mm, bmm and addmm in FP32 (TF32 off in torch, no precision asked for) whose choice is
  cuBLAS's default call: torch.mm, bmm and addmm, which make that call. Once the race timed GPU
  time (2026-11-27), small float32 products went to cuBLAS, and through the library they paid both
  cuBLAS's host path and the library's (64^3: 25.2 us of host against torch.mm's 17.8, H100).
- 16-bit mm, bmm and addmm returning the operands' dtype (cuBLAS or cuBLASLt chosen for the c16
  problem): torch.mm, bmm and addmm, which write C in that dtype as the library's call would. The
  result is then torch's, bit for bit, under torch's settings, as torch.mm's precision rules are
  followed for TF32: allow_bf16/fp16_reduced_precision_reduction (on by default) let cuBLAS reduce
  split-K partial sums in the 16-bit type; at nine shapes from 64x64x4096 to 512x512x32768 it never
  did (bit-equal to the results with the settings off, H200, 2026-11-26), and switching them off per
  call cost 1.3 to 1.9 us. (The route was first taken because the library's FP32 C and its cast cost
  more; with a 16-bit C that cost is gone, and whether a c16 cuBLASLt winner should now stay in the
  library, as float32's do, is not measured yet: docs/16-bit-c.md, the bf16 MLP measured again.)
- A linear layer: the library gets the bias row (gemmtune_run_gemm_problem_bias, beta = 0) and its
  kernels add it as they store C; a bias of another shape is copied into C first (beta = 1). Given
  cuBLAS (float32) or cuBLAS or
  cuBLASLt (16-bit), torch's linear runs it (cuBLASLt with the bias in its epilogue: 512x4096x1024:nt
  95 us against 116 on the H100), or for float32 products with few output tiles and a long K torch's
  addmm over the bias expanded to C's shape, which is the library's own cuBLAS work at less host time
  (SPLIT_K_FROM).
Never while recording (the library must count the call) nor where torch would compute in another
precision (TF32 for float32 against our fp32, or 3xtf32 asked for).
"""

from __future__ import annotations

import functools
import os
from typing import NamedTuple

import torch

from . import _handles
from . import _library as L
from . import _precision
from ._layout import GemmArguments, plan_bmm, plan_mm
from ._precision import C_OPERAND_TYPE

_float32 = torch.float32
_dtypes = (torch.float32, torch.bfloat16, torch.float16)
_plans: dict = {}  # (function, shapes, strides, dtype, precision asked, TF32 allowed, ...) -> _Plan
_MAX_PLANS = 4096

try:
    _raw_stream = torch._C._cuda_getCurrentRawStream  # what torch.cuda.current_stream(d).cuda_stream reads
except AttributeError:  # pragma: no cover - older or other builds
    def _raw_stream(device):
        return torch.cuda.current_stream(device).cuda_stream

_multi_device = None
_torch_linear = torch._C._nn.linear  # torch.nn.functional.linear
_torch_addmm = torch.addmm
_torch_mm = torch.mm
_torch_bmm = torch.bmm


def _torch_addmm_scaled(c, a, b, beta, alpha):
    return _torch_addmm(c, a, b, beta=beta, alpha=alpha)


torch_linear_for_cublas = True  # False: every product runs in the library (benchmarks compare both)
_legacy_tf32_allowed = torch._C._get_cublas_allow_tf32


def _tf32_allowed() -> bool:
    """Whether torch's own float32 matmul runs TF32 now (allow_tf32, set_float32_matmul_precision, or
    torch >= 2.9's fp32_precision = "tf32"; the legacy getter refuses once the new API was used)."""
    try:
        return _legacy_tf32_allowed()
    except RuntimeError:
        return torch.backends.cuda.matmul.fp32_precision == "tf32"
_plain = (torch.Tensor, torch.nn.Parameter)
_is_compiling = torch.compiler.is_compiling
_grad_enabled = torch.is_grad_enabled


def through_op(*tensors) -> bool:
    """Whether a call must go through the registered op: while tracing or compiling, or when
    autograd records it. Otherwise the direct call skips the dispatcher."""
    if _is_compiling():
        return True
    if _grad_enabled():
        for t in tensors:
            if t is not None and (type(t) not in _plain or t.requires_grad):
                return True
        return False
    for t in tensors:  # inference (no_grad): the types alone
        if t is not None and type(t) not in _plain:
            return True
    return False


def check_tensor(name: str, argument: str, x) -> None:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name}: argument '{argument}' must be a torch.Tensor, got {type(x).__name__}")
    if not x.is_cuda:
        raise ValueError(f"{name}: argument '{argument}' is on {x.device}; gemmtune runs on CUDA tensors")
    if x.dtype not in _dtypes:
        raise TypeError(f"{name}: argument '{argument}' is {x.dtype}; gemmtune supports torch.float32, "
                        f"torch.bfloat16 and torch.float16")


def _check_pair(name, a, b):
    # The common case in a few attribute reads; the full checks name the argument when it fails.
    if not (type(a) is torch.Tensor and type(b) is torch.Tensor and a.is_cuda and b.is_cuda
            and a.dtype is b.dtype and a.dtype in _dtypes):
        check_tensor(name, "a", a)
        check_tensor(name, "b", b)
        _precision.check_operand_dtypes(name, (("a", a.dtype), ("b", b.dtype)))
    device = a.get_device()
    if b.get_device() != device:
        raise ValueError(f"{name}: arguments 'a' ({a.device}) and 'b' ({b.device}) are on different devices")
    return device


class _Plan(NamedTuple):
    args: GemmArguments
    problem: L.SgemmProblem
    precision: int  # gemmtune_precision_t
    c_type: int  # gemmtune_c_type_t: C_FP32 or C_OPERAND_TYPE (the output is the library's 16-bit C)
    c_dtype: object  # the torch dtype of the library's C: the output's allocation
    cast: object  # the result's dtype where it is not c_dtype (a float32 c added to a 16-bit result)
    device: int
    torch_call: object  # torch's own call for the product (see the docstring), else None: the library's


def _precision_of(name, dtype, precision, out_dtype, tf32, added_dtype=None):
    """(gemmtune_precision_t, gemmtune_c_type_t, torch dtype of the library's C, dtype to cast that C
    to or None) for operands of torch dtype dtype; added_dtype: the dtype of what C starts as
    (addmm's c where beta != 0, a bias), None for nothing (_precision.c_type)."""
    operands = _precision.dtype_name(dtype)
    value = _precision.resolve(name, operands, precision, tf32)
    result = _precision.output_dtype(name, operands, out_dtype)
    c_type = _precision.c_type(operands, result, added_dtype)
    c_dtype = dtype if c_type == C_OPERAND_TYPE else _float32
    return value, c_type, c_dtype, (None if result == _precision.dtype_name(c_dtype) else getattr(torch, result))


def _tf32_for(dtype, precision) -> bool:
    """torch's TF32 setting where it decides the precision (float32, none asked for), else False."""
    return dtype is _float32 and precision is None and _tf32_allowed()


def _plan(planner, name, a, b, alpha=1.0, beta=0.0, precision=None, out_dtype=None, c=None, torch_function=None):
    """The _Plan for these operands (and addmm's c), cached per shapes, strides, dtypes, devices and
    arguments: a plan found means the checks passed, so a repeated call pays one key and one lookup.
    torch_function(*tensors): the torch call that may run a 16-bit product the library gives cuBLAS."""
    try:
        key = (planner, a.shape, a.stride(), a.dtype, a.device, b.shape, b.stride(), b.dtype, b.device,
               None if c is None else (c.shape, c.dtype, c.device), alpha, beta, precision, out_dtype,
               _tf32_allowed())
    except AttributeError:  # not tensors: the checks say which argument
        _check_pair(name, a, b)
        if c is not None:
            check_tensor(name, "c", c)
        raise
    entry = _plans.get(key)
    if entry is None:
        device = _check_pair(name, a, b)
        dtype = a.dtype
        args = planner(name, a.shape, a.stride(), b.shape, b.stride())
        value, c_type, c_dtype, cast = _precision_of(name, dtype, precision, out_dtype, key[-1] and dtype is _float32
                                                     and precision is None,
                                                     None if c is None or beta == 0.0 else c.dtype)
        torch_call = None
        # The library's choice for the product is what torch's own call makes: torch (the docstring).
        makes = _torch_makes(dtype, value, c_type, cast, key[-1]) if torch_function is not None else ()
        if (makes and not os.environ.get("GEMMTUNE_RECORD") and (c is None or _adds_in_torch(c, dtype, device, args))
                and _library_implementation(args, value, c_type, None, None, device) in makes):
            torch_call = torch_function
        entry = _Plan(args, L.sgemm_problem(args, alpha, beta), value, c_type, c_dtype, cast, device, torch_call)
        if len(_plans) >= _MAX_PLANS:
            _plans.clear()
        _plans[key] = entry
    return entry


def _torch_makes(dtype, precision, c_type, cast, tf32_allowed) -> tuple:
    """The library's choices that torch's own mm, bmm or addmm makes for these operands: cuBLAS or
    cuBLASLt for a 16-bit result (the c16 problem); cuBLAS's default call for float32 in FP32 (torch
    computes float32 in FP32 while TF32 is off; a cuBLASLt algorithm the race picked stays in the
    library); nothing else."""
    if c_type == C_OPERAND_TYPE:
        return ("cublas", "cublaslt")
    if dtype is _float32 and precision == _precision.FP32 and cast is None and not tf32_allowed:
        return ("cublas",)
    return ()


def _adds_in_torch(c, dtype, device, args) -> bool:
    """Whether torch.addmm takes addmm's c as the library would: same dtype and device, broadcasting
    to C's shape (anything else runs in the library, which adds a float32 c or raises)."""
    if c.dtype is not dtype or c.get_device() != device:
        return False
    try:
        return torch.broadcast_shapes(c.shape, (args.m, args.n)) == (args.m, args.n)
    except RuntimeError:
        return False


def _run(plan, a, b, c, device, name):
    _run_pointers(plan.precision, plan.c_type, plan.problem, a.data_ptr(), b.data_ptr(), c.data_ptr(), device, name)


def _run_pointers(precision, c_type, problem, pa, pb, pc, device, name, pbias=0):
    """One library call into pc: gemmtune_run_gemm_problem_ex with c_type for a 16-bit C (pc holds
    the operands' dtype), gemmtune_run_gemm_problem for an FP32 C (pc holds floats); with a bias
    (pbias: n elements of C's dtype, added to every row), gemmtune_run_gemm_problem_bias."""
    global _multi_device
    handle = _handles._handles.get(device)
    if handle is None:
        handle = _handles.get(device, lambda: torch.cuda.device(device))
    if _multi_device is None:
        _multi_device = torch.cuda.device_count() > 1
    if _multi_device and torch.cuda.current_device() != device:
        with torch.cuda.device(device):
            return _run_pointers(precision, c_type, problem, pa, pb, pc, device, name, pbias)
    if pbias:
        status = _run_problem_bias(handle, precision, c_type, problem, pa, pb, pbias, pc, _raw_stream(device))
    elif c_type:
        status = _run_problem_ex(handle, precision, c_type, problem, pa, pb, pc, _raw_stream(device))
    else:
        status = _run_problem(handle, precision, problem, pa, pb, pc, _raw_stream(device))
    if status:
        if status == L.UNSUPPORTED_DEVICE and precision != _precision.FP32:
            names = {v: k for k, v in _precision.PRECISIONS.items()}
            raise L.UnsupportedDeviceError(
                f"{name}: {torch.cuda.get_device_name(device)} cannot run precision {names.get(precision)!r} "
                f"(tf32, 3xtf32 and bf16 need sm_80, fp16 sm_75) (unsupported_device)", "unsupported_device")
        L.raise_for_status(status, name)


def _run_problem(*args):
    global _run_problem
    _run_problem = L.lib().gemmtune_run_gemm_problem  # bound once: the call path skips the lookup
    return _run_problem(*args)


def _run_problem_ex(*args):
    global _run_problem_ex
    _run_problem_ex = L.lib().gemmtune_run_gemm_problem_ex
    return _run_problem_ex(*args)


def _run_problem_bias(*args):
    global _run_problem_bias
    _run_problem_bias = L.lib().gemmtune_run_gemm_problem_bias
    return _run_problem_bias(*args)


def _library_implementation(args, precision, c_type, pa, pb, device) -> str:
    """What the library runs for this product with a C of c_type ("cublas", "cublaslt" or a kernel's
    name; "" where it refuses the problem); pa and pb: the operands' addresses, for their alignment
    (None: aligned as from cudaMalloc; less aligned rows only ever make cuBLAS likelier)."""
    if torch.cuda.device_count() > 1 and torch.cuda.current_device() != device:
        with torch.cuda.device(device):
            return _library_implementation(args, precision, c_type, pa, pb, device)
    handle = _handles.get(device, lambda: torch.cuda.device(device))
    config = L.text_buffer(256)
    status = L.choose_gemm(handle, precision, c_type, args.op_a, args.op_b, args.m, args.n, args.k, pa, args.lda,
                           args.stride_a, pb, args.ldb, args.stride_b, args.n, args.m * args.n, args.batch, None,
                           config, len(config), None, 0)
    return config.value.decode() if status == L.SUCCESS else ""


# The common call, mm or bmm of plain tensors with no precision or out_dtype asked for, skips the
# general path: gemmtune.mm and bmm read direct_key's key inline and find here what runs the call,
# torch's own mm or bmm where the plan gives the product to torch's call (see the docstring), else
# the library's product under the plan, which they call with (a, b). Over torch.mm at 64^3 on the
# H100's host (#46 asks for 2 us): 5.1 us through the general path, 3.2 through a lookup function
# that returned the plan (2026-11-27); inline, with what runs stored, the call costs no Python frame
# of ours but the lookup's (the README's Python section has the figures). Filled once the general path
# has checked a call (remember=True; not by the op's kernel, which never looks here), so a run found
# is a passed check; never while recording (torch's call would not be counted; record() empties it).
# The tensors' types in the key keep subclasses (which go through the op) out, and its last field,
# whether autograd records the call, keeps those out.
direct_runs: dict = {}  # direct_key(...) -> run(a, b)


def direct_key(planner, a, b, tf32, autograd):
    """The key of direct_runs, as gemmtune.mm and bmm build it inline: if the two drift apart every
    lookup misses (test_repeated_mm_and_bmm_take_the_direct_path fails), nothing runs wrong."""
    return (planner, type(a), type(b), a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype, a.get_device(),
            b.get_device(), tf32, autograd)


def direct_run(planner, a, b):
    """What runs mm (planner plan_mm) or bmm (plan_bmm) of a and b directly, with TF32 read however
    torch takes it; None where the general path must take the call."""
    try:
        return direct_runs.get(direct_key(planner, a, b, _tf32_allowed(),
                                          _grad_enabled() and (a.requires_grad or b.requires_grad)))
    except (AttributeError, RuntimeError):  # not tensors, or sparse ones: the general path names them
        return None


def _remember_direct(planner, a, b, plan, batched, name):
    if _handles.recording:
        return
    if len(direct_runs) >= _MAX_PLANS:
        direct_runs.clear()
    run = plan.torch_call or functools.partial(_product, plan, batched, name)
    direct_runs[direct_key(planner, a, b, _tf32_allowed(), False)] = run


def _product(plan, batched, name, a, b):
    """mm's or bmm's (batched) result under plan: torch's call, or a fresh C and one library call."""
    if plan.torch_call is not None and not _handles.recording:
        return plan.torch_call(a, b)
    args = plan.args
    c = a.new_empty((args.batch, args.m, args.n) if batched else (args.m, args.n), dtype=plan.c_dtype)
    if args.m and args.n and args.batch:
        if args.k == 0:
            c.zero_()
        else:
            _run(plan, a, b, c, plan.device, name)
    return c


def mm(a, b, precision=None, out_dtype=None, name="gemmtune.mm", remember=False):
    """a @ b into a fresh contiguous result of the operands' dtype (the library's C in that dtype) or
    float32 (out_dtype). remember: keep what runs it for the direct call (direct_runs)."""
    plan = _plan(plan_mm, name, a, b, 1.0, 0.0, precision, out_dtype, torch_function=_torch_mm)
    if remember and precision is None and out_dtype is None:
        _remember_direct(plan_mm, a, b, plan, False, name)
    return _product(plan, False, name, a, b)


def bmm(a, b, precision=None, out_dtype=None, name="gemmtune.bmm", remember=False):
    plan = _plan(plan_bmm, name, a, b, 1.0, 0.0, precision, out_dtype, torch_function=_torch_bmm)
    if remember and precision is None and out_dtype is None:
        _remember_direct(plan_bmm, a, b, plan, True, name)
    return _product(plan, True, name, a, b)


def _finish(c, plan):
    return c if plan.cast is None else c.to(plan.cast)


def _check_added(name, argument, c, dtype):
    """c of addmm (or a bias): a CUDA tensor of the operands' dtype or float32."""
    check_tensor(name, argument, c)
    if c.dtype is not dtype and c.dtype is not _float32:
        raise TypeError(f"{name}: argument '{argument}' is {c.dtype} but the operands are {dtype}; it may be "
                        f"{dtype} or torch.float32")


def _broadcast_into(name, c, shape, out, checked=False, dtype=_float32):
    if not checked:
        _check_added(name, "c", c, dtype)
    if c.get_device() != out.get_device():
        raise ValueError(f"{name}: argument 'c' ({c.device}) is not on {out.device}")
    try:
        out.copy_(c.expand(shape))
    except RuntimeError as e:
        raise ValueError(f"{name}: argument 'c' of shape {tuple(c.shape)} does not broadcast to "
                         f"{tuple(shape)}") from e


def addmm(c, a, b, beta=1.0, alpha=1.0, precision=None, out_dtype=None, name="gemmtune.addmm"):
    """beta * c + alpha * (a @ b), c broadcast to the product's shape (a bias row, a scalar) and copied
    into the library's C, which the library scales by beta and adds the product to in FP32. For a
    16-bit result and a c of the operands' dtype that C is 16-bit (the c16 problem): the copy is exact
    and the library reads C as 16-bit, as cublasGemmEx does with a 16-bit Ctype, rounding each result
    once. A float32 c stays whole in an FP32 C, rounded once to a 16-bit result by a cast: rounding c
    to 16 bits first would lose its low bits (_precision.c_type)."""
    beta, alpha = float(beta), float(alpha)
    plan = _plan(plan_mm, name, a, b, alpha, beta, precision, out_dtype, c, _torch_addmm_scaled)
    if plan.torch_call is not None and not _handles.recording:
        return plan.torch_call(c, a, b, beta, alpha)
    args = plan.args
    shape = (args.m, args.n)
    out = a.new_empty(shape, dtype=plan.c_dtype)
    if beta != 0.0:
        _broadcast_into(name, c, shape, out, dtype=a.dtype)
    else:
        _check_added(name, "c", c, a.dtype)
    if out.numel() == 0:
        return _finish(out, plan)
    if args.k == 0 or alpha == 0.0:
        return _finish(out.mul_(beta) if beta != 0.0 else out.zero_(), plan)
    _run(plan, a, b, out, plan.device, name)
    return _finish(out, plan)


TORCH_LINEAR, TORCH_ADDMM = 1, 2  # _LinearPlan.torch_route: how torch runs a product given to cuBLAS
TORCH_OTHER = 3  # not ours (a CPU tensor, another dtype): torch's linear, for nn.Linear as a drop-in
# A float32 layer with few output tiles and a long K gains from cuBLAS splitting K, which torch's
# linear (cuBLASLt, the bias in its epilogue) never does; but that route (torch's addmm over the
# expanded bias) makes two or three launches where linear makes one, 4 to 12 us more host time a
# layer, which an eager forward at 64 rows pays in full (H100, 2026-11-27: the 2-layer MLP at 64 rows
# 0.89x torch's with every long-K layer routed so). So it is taken where it saves more GPU time than
# that: K from SPLIT_K_FROM and at most sm_count / SPLIT_K_TILES tiles of 128x128. Torch's linear
# against the addmm, GPU us, same run: 8 tiles at K = 512, 1024, 2048, 4096: 20.5/12.6, 24.9/14.9,
# 34.7/18.8, 55.3/26.8; 32 tiles (512x1024x4096) 132.0/105.6, but 32 tiles at K = 1024 (64x4096x1024)
# 29.5/25.4 and 128 tiles (512x4096x1024) 95.5/116.7. For bfloat16 torch's linear was faster at every
# K to 2048 (H200, 2026-11-26: 5.4 against 7.2 us), and at 4096x4096x1024 (52.7 against 87.0).
SPLIT_K_FROM = 2048
SPLIT_K_TILES = 4


class _LinearPlan(NamedTuple):
    args: GemmArguments
    problem: L.SgemmProblem
    torch_route: int  # 0 (the library), TORCH_LINEAR, TORCH_ADDMM (see the docstring) or TORCH_OTHER
    bias_row: bool  # the bias is one row of n
    precision: int  # gemmtune_precision_t
    c_type: int  # gemmtune_c_type_t: C_OPERAND_TYPE for 16-bit tensors (the output is the library's C)
    c_dtype: object  # the output's dtype: the input's (a bias always has it too)
    device: int


_linear_plans: dict = {}  # (shapes, strides, dtypes, devices, bias, precision, TF32, ...) -> _LinearPlan
_handles.choice_caches += [_plans, direct_runs, _linear_plans]
_handles.bypassing_caches.append(direct_runs)
_sm_counts: dict = {}


def torch_linear_route(m, n, k, sm_count, sixteen_bit) -> int:
    """How torch runs a layer's product that the library gives cuBLAS: its linear, but for float32
    products of a long K with a 128x128 output tile for at most a quarter of the SMs, its addmm over
    the expanded bias (cuBLAS may split K; see SPLIT_K_FROM)."""
    tiles = -(-m // 128) * -(-n // 128)
    few_tiles = tiles * SPLIT_K_TILES <= sm_count
    return TORCH_ADDMM if not sixteen_bit and few_tiles and k >= SPLIT_K_FROM else TORCH_LINEAR


def _addmm_in_torch(rows, weight, bias):
    return _torch_addmm(bias.expand(rows.shape[0], weight.shape[0]), rows, weight.t())


def _linear_plan(name, rows, weight, bias, device, precision, tf32):
    """The plan for rows @ weight.T (+ bias); ValueError where the strides cannot be expressed."""
    args = plan_mm(name, rows.shape, rows.stride(), (weight.shape[1], weight.shape[0]),
                   (weight.stride(1), weight.stride(0)))
    dtype = rows.dtype
    # The bias has the input's dtype (checked), so a 16-bit layer's C is 16-bit (c16) and so is the
    # bias. A bias row goes to the library, which adds it as it stores C (beta = 0; cuBLAS's calls get a
    # kernel over C first); another broadcast is copied into C and read with beta = 1.
    value, c_type, c_dtype, _ = _precision_of(name, dtype, precision, None, tf32, None if bias is None else bias.dtype)
    bias_row = bias is not None and bias.dim() == 1 and bias.shape[0] == args.n
    route = 0
    same_as_torch = value == _precision.torch_precision(_precision.dtype_name(dtype), tf32)
    sixteen_bit = c_type == C_OPERAND_TYPE
    if (same_as_torch and (bias_row or (sixteen_bit and bias is None)) and (bias is None or bias.dtype is dtype)
            and args.m and args.n and args.k and not os.environ.get("GEMMTUNE_RECORD")):
        # The library's cuBLASLt winner beats torch's call for float32. 16-bit layers whose c16
        # problem goes to cuBLASLt take torch's linear as they did when the library wrote an FP32 C
        # and cast it (then the cast cost more than any algorithm gained); with a 16-bit C that is
        # not re-measured yet (docs/16-bit-c.md).
        runs = _library_implementation(args, value, c_type, None, None, device)  # as aligned (see there)
        if runs == "cublas" or (sixteen_bit and runs == "cublaslt"):
            if device not in _sm_counts:
                _sm_counts[device] = torch.cuda.get_device_properties(device).multi_processor_count
            route = (TORCH_LINEAR if bias is None
                     else torch_linear_route(args.m, args.n, args.k, _sm_counts[device], sixteen_bit))
    beta = 1.0 if bias is not None and not bias_row else 0.0
    return _LinearPlan(args, L.sgemm_problem(args, 1.0, beta), route, bias_row, value, c_type, c_dtype, device)


def _runs_here(x, weight, bias) -> bool:
    dtype = x.dtype
    return (x.is_cuda and dtype in _dtypes and weight.is_cuda and weight.dtype is dtype
            and (bias is None or (bias.is_cuda and bias.dtype is dtype)))


def linear(x, weight, bias=None, name="gemmtune.nn.functional.linear", precision=None, others_in_torch=False):
    """x @ weight.T + bias over x's last dimension, as torch.nn.functional.linear: weight is
    (out_features, in_features) and runs as op T, no copy. The result has x's dtype: a 16-bit one is
    the library's C written in that dtype (gemmtune_run_gemm_problem_ex, the c16 problem), no cast.
    others_in_torch: tensors gemmtune does not take (on the CPU, of another dtype) run torch's linear
    (nn.Linear's drop-in path) instead of raising. The plan (checks, stride mapping, precision, C
    type, route) is cached per shapes, strides, dtypes and devices, so a repeated call costs one key
    and one lookup, then torch's call or the output's allocation and the library call (given the bias
    row, which its kernels add as they store C; a bias of another shape is copied into C first)."""
    try:  # _tf32_allowed(), inline
        tf32 = _legacy_tf32_allowed()
    except RuntimeError:
        tf32 = torch.backends.cuda.matmul.fp32_precision == "tf32"
    try:
        key = (x.shape, x.stride(), x.dtype, x.device, weight.shape, weight.stride(), weight.dtype, weight.device,
               None if bias is None else (bias.shape, bias.dtype, bias.device), precision, tf32, others_in_torch)
    except AttributeError:  # not tensors: the checks say which argument
        for argument, t in (("input", x), ("weight", weight), ("bias", bias)):
            if t is not None:
                check_tensor(name, argument, t)
        raise
    plan = _linear_plans.get(key)
    if plan is None:
        plan = _new_linear_plan(key, x, weight, bias, name, precision, others_in_torch)
        if plan is None:  # strides the C API cannot express: a drop-in for torch's linear copies them
            out = linear(x.reshape(-1, x.shape[-1]).contiguous(), weight.contiguous(), bias, name, precision,
                         others_in_torch)
            return out.view(*x.shape[:-1], weight.shape[0])
    route = plan.torch_route
    in_torch = route and torch_linear_for_cublas and not _handles.recording
    if route == TORCH_OTHER or (in_torch and route == TORCH_LINEAR):
        return _torch_linear(x, weight, bias)
    dims = x.dim()
    rows = x if dims == 2 else x.reshape(-1, x.shape[-1])
    args = plan.args
    if in_torch:
        out = _addmm_in_torch(rows, weight, bias)
    else:
        out = rows.new_empty((args.m, args.n), dtype=plan.c_dtype)
        runs = args.m and args.n and args.k
        pbias = 0
        if plan.bias_row and runs:
            if bias.stride(0) != 1:
                bias = bias.contiguous()  # n elements; freed in stream order after the call
            pbias = bias.data_ptr()
        elif bias is not None:  # broadcast over the rows; the bias has C's dtype, so exactly
            _broadcast_into(name, bias, (args.m, args.n), out, checked=True)
        elif args.k == 0:
            out.zero_()
        if runs:
            _run_pointers(plan.precision, plan.c_type, plan.problem, rows.data_ptr(), weight.data_ptr(),
                          out.data_ptr(), plan.device, name, pbias)
    return out if dims == 2 else out.view(*x.shape[:-1], args.n)


def _new_linear_plan(key, x, weight, bias, name, precision, others_in_torch):
    """Checks the call and caches its plan; None where rows or weight must be copied first."""
    if others_in_torch and not _runs_here(x, weight, bias):
        plan = _LinearPlan(None, None, TORCH_OTHER, False, 0, 0, None, -1)
    else:
        check_tensor(name, "input", x)
        check_tensor(name, "weight", weight)
        if bias is not None:
            check_tensor(name, "bias", bias)
        _precision.check_operand_dtypes(name, (("input", x.dtype), ("weight", weight.dtype),
                                               ("bias", None if bias is None else bias.dtype)))
        if weight.dim() != 2:
            raise ValueError(f"{name}: argument 'weight' must be 2-D, got shape {tuple(weight.shape)}")
        if x.dim() < 2 or x.shape[-1] != weight.shape[1]:
            raise ValueError(f"{name}: argument 'input' of shape {tuple(x.shape)} does not end in "
                             f"in_features = {weight.shape[1]} (argument 'weight' is {tuple(weight.shape)})")
        device = x.get_device()
        if weight.get_device() != device:
            raise ValueError(f"{name}: arguments 'input' ({x.device}) and 'weight' ({weight.device}) are on "
                             f"different devices")
        if bias is not None and bias.get_device() != device:
            raise ValueError(f"{name}: argument 'bias' ({bias.device}) is not on {x.device}")
        rows = x if x.dim() == 2 else x.reshape(-1, x.shape[-1])
        try:
            plan = _linear_plan(name, rows, weight, bias, device, precision,
                                key[-2] and x.dtype is _float32 and precision is None)
        except ValueError:
            if rows.is_contiguous() and weight.is_contiguous():
                raise
            return None
    if len(_linear_plans) >= _MAX_PLANS:
        _linear_plans.clear()
    _linear_plans[key] = plan
    return plan
