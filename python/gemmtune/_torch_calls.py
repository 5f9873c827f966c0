"""The eager CUDA path for torch tensors: checks, the stride mapping and the precision (_precision:
float32 as fp32, tf32 where torch would use TF32, or as asked; bfloat16 and float16 as bf16 and fp16),
cached per shape, strides and dtype; a fresh contiguous FP32 output, one gemmtune_run_gemm_problem on
the current stream, and for 16-bit operands a cast of that FP32 C to their dtype (as torch.mm returns
it) unless out_dtype=torch.float32 keeps it. The registered op's CUDA kernel (_torch_ops) and
gemmtune.mm outside autograd and compilation both run this, so the op and the direct call can differ
only in the dispatcher's cost.

A linear layer's bias is copied into C (new_empty, then copy_ broadcasting the bias: 14 us of host on
the H100 machine against 27 for bias.repeat) and the library adds the product (beta = 1). Where the
library gives that product to cuBLAS, torch calls cuBLAS instead, at less host time (H100,
2026-11-26): with at least as many 128x128 output tiles as the GPU has SMs, torch's own linear
(cuBLASLt with the bias in its epilogue: 512x4096x1024:nt 95 us against 116, 4096x4096x1024:nt 698
against 766); with fewer, torch's addmm over the bias expanded to C's shape, which is the library's
own cuBLAS work (the bias copied into C, then cublasSgemm with beta 1: 25 and 26 us at 64 rows, as in
the library) at 37 us of host a layer against 62 (cuBLASLt's fused bias does not split K there:
64x1024x4096:nt 55 us against 27). Never while recording (the library must count the call) nor where
torch would compute in another precision (TF32 for float32 against our fp32, or 3xtf32 asked for).
For 16-bit operands torch's call also spares the cast of the library's FP32 C.
"""

from __future__ import annotations

import os
from typing import NamedTuple

import torch

from . import _handles
from . import _library as L
from . import _precision
from ._layout import GemmArguments, plan_bmm, plan_mm

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
    grad = _grad_enabled()
    for t in tensors:
        if t is not None and (type(t) not in _plain or (grad and t.requires_grad)):
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
    cast: object  # the result's dtype where it is not the library's FP32 C, else None


def _precision_of(name, dtype, precision, out_dtype, tf32):
    """(gemmtune_precision_t, dtype to cast the FP32 C to or None) for operands of torch dtype dtype."""
    operands = _precision.dtype_name(dtype)
    value = _precision.resolve(name, operands, precision, tf32)
    result = _precision.output_dtype(name, operands, out_dtype)
    return value, (None if result == "float32" else getattr(torch, result))


def _tf32_for(dtype, precision) -> bool:
    """torch's TF32 setting where it decides the precision (float32, none asked for), else False."""
    return dtype is _float32 and precision is None and _tf32_allowed()


def _plan(planner, name, a, b, alpha=1.0, beta=0.0, precision=None, out_dtype=None):
    """The _Plan for these operands' shapes, strides and dtype, cached."""
    dtype = a.dtype
    tf32 = _tf32_for(dtype, precision)
    key = (planner, a.shape, a.stride(), b.shape, b.stride(), alpha, beta, dtype, precision, out_dtype, tf32)
    entry = _plans.get(key)
    if entry is None:
        args = planner(name, a.shape, a.stride(), b.shape, b.stride())
        value, cast = _precision_of(name, dtype, precision, out_dtype, tf32)
        entry = _Plan(args, L.sgemm_problem(args, alpha, beta), value, cast)
        if len(_plans) >= _MAX_PLANS:
            _plans.clear()
        _plans[key] = entry
    return entry


def _run(plan, a, b, c, device, name):
    _run_pointers(plan.precision, plan.problem, a.data_ptr(), b.data_ptr(), c.data_ptr(), device, name)


def _run_pointers(precision, problem, pa, pb, pc, device, name):
    global _multi_device
    handle = _handles._handles.get(device)
    if handle is None:
        handle = _handles.get(device, lambda: torch.cuda.device(device))
    if _multi_device is None:
        _multi_device = torch.cuda.device_count() > 1
    if _multi_device and torch.cuda.current_device() != device:
        with torch.cuda.device(device):
            return _run_pointers(precision, problem, pa, pb, pc, device, name)
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


def _library_runs_cublas(args, precision, pa, pb, device) -> bool:
    """Whether the library's choice for this product (pointers pa and pb for their alignment) is cuBLAS."""
    if torch.cuda.device_count() > 1 and torch.cuda.current_device() != device:
        with torch.cuda.device(device):
            return _library_runs_cublas(args, precision, pa, pb, device)
    handle = _handles.get(device, lambda: torch.cuda.device(device))
    config = L.text_buffer(256)
    status = L.lib().gemmtune_choose_gemm(
        handle, precision, args.op_a, args.op_b, args.m, args.n, args.k, pa, args.lda, args.stride_a, pb, args.ldb,
        args.stride_b, args.n, args.m * args.n, args.batch, None, config, len(config), None, 0)
    return status == L.SUCCESS and config.value == b"cublas"


def _finish(c, plan):
    return c if plan.cast is None else c.to(plan.cast)


def mm(a, b, precision=None, out_dtype=None, name="gemmtune.mm"):
    device = _check_pair(name, a, b)
    plan = _plan(plan_mm, name, a, b, 1.0, 0.0, precision, out_dtype)
    args = plan.args
    c = a.new_empty((args.m, args.n), dtype=_float32)
    if args.m and args.n:
        if args.k == 0:
            c.zero_()
        else:
            _run(plan, a, b, c, device, name)
    return _finish(c, plan)


def bmm(a, b, precision=None, out_dtype=None, name="gemmtune.bmm"):
    device = _check_pair(name, a, b)
    plan = _plan(plan_bmm, name, a, b, 1.0, 0.0, precision, out_dtype)
    args = plan.args
    c = a.new_empty((args.batch, args.m, args.n), dtype=_float32)
    if args.m and args.n and args.batch:
        if args.k == 0:
            c.zero_()
        else:
            _run(plan, a, b, c, device, name)
    return _finish(c, plan)


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
    """beta * c + alpha * (a @ b), c broadcast to the product's shape (a bias row, a scalar). c is
    added in FP32 (the library's C) and may be float32 or the operands' dtype."""
    device = _check_pair(name, a, b)
    beta, alpha = float(beta), float(alpha)
    plan = _plan(plan_mm, name, a, b, alpha, beta, precision, out_dtype)
    args = plan.args
    shape = (args.m, args.n)
    out = a.new_empty(shape, dtype=_float32)
    if beta != 0.0:
        _broadcast_into(name, c, shape, out, dtype=a.dtype)
    else:
        _check_added(name, "c", c, a.dtype)
    if out.numel() == 0:
        return _finish(out, plan)
    if args.k == 0 or alpha == 0.0:
        return _finish(out.mul_(beta) if beta != 0.0 else out.zero_(), plan)
    _run(plan, a, b, out, device, name)
    return _finish(out, plan)


TORCH_LINEAR, TORCH_ADDMM = 1, 2  # _LinearPlan.torch_route: how torch runs a product given to cuBLAS


class _LinearPlan(NamedTuple):
    args: GemmArguments
    problem: L.SgemmProblem
    torch_route: int  # 0 (the library), TORCH_LINEAR or TORCH_ADDMM (see the docstring)
    bias_row: bool  # the bias is one row of n
    precision: int  # gemmtune_precision_t
    cast: object  # the result's dtype where it is not the library's FP32 C, else None


_linear_plans: dict = {}  # (shapes, strides, bias shape, alignment, devices, generation, dtype, precision) -> plan
_sm_counts: dict = {}


def _linear_plan(name, rows, weight, bias, device, pa, pw, precision, tf32):
    """The plan for rows @ weight.T (+ bias); ValueError where the strides cannot be expressed."""
    args = plan_mm(name, rows.shape, rows.stride(), (weight.shape[1], weight.shape[0]),
                   (weight.stride(1), weight.stride(0)))
    value, cast = _precision_of(name, rows.dtype, precision, None, tf32)
    bias_row = bias is not None and bias.dim() == 1 and bias.shape[0] == args.n
    route = 0
    same_as_torch = value == _precision.torch_precision(_precision.dtype_name(rows.dtype), tf32)
    if (bias_row and same_as_torch and bias.dtype is rows.dtype and args.m and args.n and args.k
            and not os.environ.get("GEMMTUNE_RECORD") and _library_runs_cublas(args, value, pa, pw, device)):
        if device not in _sm_counts:
            _sm_counts[device] = torch.cuda.get_device_properties(device).multi_processor_count
        tiles = -(-args.m // 128) * -(-args.n // 128)
        route = TORCH_LINEAR if tiles >= _sm_counts[device] else TORCH_ADDMM
    return _LinearPlan(args, L.sgemm_problem(args, 1.0, 0.0 if bias is None else 1.0), route, bias_row, value, cast)


def linear(x, weight, bias=None, name="gemmtune.nn.functional.linear", checked=False, precision=None):
    """x @ weight.T + bias over x's last dimension, as torch.nn.functional.linear: weight is
    (out_features, in_features) and runs as op T, no copy. The result has x's dtype (a 16-bit one is
    the FP32 C cast once). checked: the caller has made sure all three are CUDA tensors of one
    supported dtype (nn.Linear's path). The plan (checks, stride mapping, precision, route) is cached
    per shapes, strides, alignment and dtype, so a call repeated costs a dictionary lookup, the
    output's allocation (the bias copied in), the library call and, for 16-bit tensors, the cast."""
    if not checked:
        check_tensor(name, "input", x)
        check_tensor(name, "weight", weight)
        if bias is not None:
            check_tensor(name, "bias", bias)
        _precision.check_operand_dtypes(name, (("input", x.dtype), ("weight", weight.dtype),
                                               ("bias", None if bias is None else bias.dtype)))
    dims = x.dim()
    rows = x if dims == 2 else x.reshape(-1, x.shape[-1]) if dims > 2 else None
    device = x.get_device()
    pa, pw = (x if rows is None else rows).data_ptr(), weight.data_ptr()
    dtype = x.dtype
    tf32 = _tf32_for(dtype, precision)
    key = (None if rows is None else (rows.shape, rows.stride()), weight.shape, weight.stride(),
           None if bias is None else bias.shape, (pa | pw) & 15, device, weight.get_device(), _handles.generation,
           dtype, precision, tf32)
    plan = _linear_plans.get(key)
    if plan is None:
        if weight.dim() != 2:
            raise ValueError(f"{name}: argument 'weight' must be 2-D, got shape {tuple(weight.shape)}")
        if rows is None or x.shape[-1] != weight.shape[1]:
            raise ValueError(f"{name}: argument 'input' of shape {tuple(x.shape)} does not end in "
                             f"in_features = {weight.shape[1]} (argument 'weight' is {tuple(weight.shape)})")
        if weight.get_device() != device:
            raise ValueError(f"{name}: arguments 'input' ({x.device}) and 'weight' ({weight.device}) are on "
                             f"different devices")
        try:
            plan = _linear_plan(name, rows, weight, bias, device, pa, pw, precision, tf32)
        except ValueError:
            if rows.is_contiguous() and weight.is_contiguous():
                raise
            # A drop-in for torch's linear takes any strides: what cannot be expressed is copied.
            out = linear(rows.contiguous(), weight.contiguous(), bias, name, checked=True, precision=precision)
            return out if dims == 2 else out.view(*x.shape[:-1], weight.shape[0])
        if len(_linear_plans) >= _MAX_PLANS:
            _linear_plans.clear()
        _linear_plans[key] = plan
    args = plan.args
    if bias is not None and bias.get_device() != device:
        raise ValueError(f"{name}: argument 'bias' ({bias.device}) is not on {x.device}")
    route = plan.torch_route
    if route and torch_linear_for_cublas and not _handles.recording:
        if route == TORCH_LINEAR:
            out = _torch_linear(rows, weight, bias)
        else:
            out = _torch_addmm(bias.expand(args.m, args.n), rows, weight.t())
    else:
        out = rows.new_empty((args.m, args.n), dtype=_float32)
        if plan.bias_row:
            out.copy_(bias)  # broadcast over the rows (and converted to FP32)
        elif bias is not None:
            _broadcast_into(name, bias, (args.m, args.n), out, checked=True)
        elif args.k == 0:
            out.zero_()
        if args.m and args.n and args.k:
            _run_pointers(plan.precision, plan.problem, pa, pw, out.data_ptr(), device, name)
        if plan.cast is not None:
            out = out.to(plan.cast)
    return out if dims == 2 else out.view(*x.shape[:-1], args.n)
