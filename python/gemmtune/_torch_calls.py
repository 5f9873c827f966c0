"""The eager CUDA path for torch tensors: checks, the stride mapping (cached per shape and strides),
a fresh contiguous output, and one gemmtune_run_sgemm_problem on the current stream. The
registered op's CUDA kernel (_torch_ops) and gemmtune.mm outside autograd and compilation both run
this, so the op and the direct call can differ only in the dispatcher's cost.
"""

from __future__ import annotations

import torch

from . import _handles
from . import _library as L
from ._layout import plan_bmm, plan_mm

_float32 = torch.float32
_plans: dict = {}  # (function, shapes, strides) -> GemmArguments
_MAX_PLANS = 4096

try:
    _raw_stream = torch._C._cuda_getCurrentRawStream  # what torch.cuda.current_stream(d).cuda_stream reads
except AttributeError:  # pragma: no cover - older or other builds
    def _raw_stream(device):
        return torch.cuda.current_stream(device).cuda_stream

_multi_device = None
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
    if x.dtype is not _float32:
        raise TypeError(f"{name}: argument '{argument}' is {x.dtype}; gemmtune supports torch.float32 "
                        f"(bf16, fp16 and tf32 later)")


def _check_pair(name, a, b):
    # The common case in three attribute reads; the full checks name the argument when it fails.
    if not (type(a) is torch.Tensor and type(b) is torch.Tensor and a.is_cuda and b.is_cuda
            and a.dtype is _float32 and b.dtype is _float32):
        check_tensor(name, "a", a)
        check_tensor(name, "b", b)
    device = a.get_device()
    if b.get_device() != device:
        raise ValueError(f"{name}: arguments 'a' ({a.device}) and 'b' ({b.device}) are on different devices")
    return device


def _plan(planner, name, a, b, alpha=1.0, beta=0.0):
    """(GemmArguments, its C value) for these operands' shapes and strides, cached."""
    key = (planner, a.shape, a.stride(), b.shape, b.stride(), alpha, beta)
    entry = _plans.get(key)
    if entry is None:
        args = planner(name, a.shape, a.stride(), b.shape, b.stride())
        entry = (args, L.sgemm_problem(args, alpha, beta))
        if len(_plans) >= _MAX_PLANS:
            _plans.clear()
        _plans[key] = entry
    return entry


def _run(problem, a, b, c, device, name):
    global _multi_device
    handle = _handles._handles.get(device)
    if handle is None:
        handle = _handles.get(device, lambda: torch.cuda.device(device))
    if _multi_device is None:
        _multi_device = torch.cuda.device_count() > 1
    if _multi_device and torch.cuda.current_device() != device:
        with torch.cuda.device(device):
            return _run(problem, a, b, c, device, name)
    status = _run_problem(handle, problem, a.data_ptr(), b.data_ptr(), c.data_ptr(), _raw_stream(device))
    if status:
        L.raise_for_status(status, name)


def _run_problem(*args):
    global _run_problem
    _run_problem = L.lib().gemmtune_run_sgemm_problem  # bound once: the call path skips the lookup
    return _run_problem(*args)


def mm(a, b, name="gemmtune.mm"):
    device = _check_pair(name, a, b)
    args, problem = _plan(plan_mm, name, a, b)
    c = a.new_empty((args.m, args.n))
    if args.m and args.n:
        if args.k == 0:
            return c.zero_()
        _run(problem, a, b, c, device, name)
    return c


def bmm(a, b, name="gemmtune.bmm"):
    device = _check_pair(name, a, b)
    args, problem = _plan(plan_bmm, name, a, b)
    c = a.new_empty((args.batch, args.m, args.n))
    if args.m and args.n and args.batch:
        if args.k == 0:
            return c.zero_()
        _run(problem, a, b, c, device, name)
    return c


def _broadcast_into(name, c, shape, out, checked=False):
    if not checked:
        check_tensor(name, "c", c)
    if c.get_device() != out.get_device():
        raise ValueError(f"{name}: argument 'c' ({c.device}) is not on {out.device}")
    try:
        out.copy_(c.expand(shape))
    except RuntimeError as e:
        raise ValueError(f"{name}: argument 'c' of shape {tuple(c.shape)} does not broadcast to "
                         f"{tuple(shape)}") from e


def addmm(c, a, b, beta=1.0, alpha=1.0, name="gemmtune.addmm"):
    """beta * c + alpha * (a @ b), c broadcast to the product's shape (a bias row, a scalar)."""
    device = _check_pair(name, a, b)
    beta, alpha = float(beta), float(alpha)
    args, problem = _plan(plan_mm, name, a, b, alpha, beta)
    shape = (args.m, args.n)
    out = a.new_empty(shape)
    if beta != 0.0:
        _broadcast_into(name, c, shape, out)
    else:
        check_tensor(name, "c", c)
    if out.numel() == 0:
        return out
    if args.k == 0 or alpha == 0.0:
        return out.mul_(beta) if beta != 0.0 else out.zero_()
    _run(problem, a, b, out, device, name)
    return out


def linear(x, weight, bias=None, name="gemmtune.nn.functional.linear", checked=False):
    """x @ weight.T + bias over x's last dimension, as torch.nn.functional.linear: weight is
    (out_features, in_features) and runs as op T, no copy. checked: the caller has made sure all
    three are float32 CUDA tensors (nn.Linear's path)."""
    if not checked:
        check_tensor(name, "input", x)
        check_tensor(name, "weight", weight)
        if bias is not None:
            check_tensor(name, "bias", bias)
    if weight.dim() != 2:
        raise ValueError(f"{name}: argument 'weight' must be 2-D, got shape {tuple(weight.shape)}")
    two_d = x.dim() == 2
    if x.dim() == 0 or x.shape[-1] != weight.shape[1]:
        raise ValueError(f"{name}: argument 'input' of shape {tuple(x.shape)} does not end in "
                         f"in_features = {weight.shape[1]} (argument 'weight' is {tuple(weight.shape)})")
    rows = x if two_d else x.reshape(-1, x.shape[-1])  # a view where x's leading dimensions allow one
    wt = weight.t()
    device = _check_pair(name, rows, wt)
    beta = 0.0 if bias is None else 1.0
    try:
        args, problem = _plan(plan_mm, name, rows, wt, 1.0, beta)
    except ValueError:
        # A drop-in for torch's linear takes any strides: what cannot be expressed is copied.
        rows, wt = rows.contiguous(), weight.contiguous().t()
        args, problem = _plan(plan_mm, name, rows, wt, 1.0, beta)
    out = rows.new_empty((args.m, args.n))
    if bias is not None:
        _broadcast_into(name, bias, (args.m, args.n), out, checked=True)
    if args.m and args.n:
        if args.k == 0:
            if bias is None:
                out.zero_()
        else:
            _run(problem, rows, wt, out, device, name)
    return out if two_d else out.view(*x.shape[:-1], args.n)
