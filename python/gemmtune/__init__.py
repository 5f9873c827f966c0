"""gemmtune for Python: the tuned GEMMs of libgemmtune on torch tensors and CuPy arrays.

    import torch, gemmtune
    c = gemmtune.mm(a, b)                  # CUDA float32, bfloat16 or float16 (c: a's dtype); .t() runs as op T
    c = gemmtune.mm(a, b, precision="3xtf32")   # float32 operands on the tensor cores, FP32-accurate
    model = gemmtune.nn.replace_linear(model)   # or gemmtune.nn.Linear(in, out) as a drop-in
    with gemmtune.record("calls.jsonl"):   # the problems the model really calls
        model(x)
    gemmtune.tune(sizes_from="calls.jsonl", gpu="auto")   # bundled gemm-tune, then reloads

A thin layer over the C API (gemmtune/gemmtune.h) through ctypes: no compiled Python module, so one
wheel serves every Python 3 and every torch version. With torch installed, importing gemmtune also
registers torch.ops.gemmtune.mm, bmm, addmm and linear (fake kernels and autograd included), which
torch.compile(fullgraph=True) keeps in the graph.

Precisions (_precision): float32 operands run FP32, or TF32 where torch.mm would
(torch.backends.cuda.matmul.allow_tf32), or what precision= names ("fp32", "tf32", "3xtf32");
bfloat16 and float16 operands run bf16 and fp16 with FP32 accumulation. The result has the operands'
dtype as torch.mm's has: for 16-bit operands the library writes C in that dtype itself (each element
rounded once, as cublasGemmEx with a 16-bit C type), so the kernel comes from the results' c16
entries, tuned apart from FP32-C ones; out_dtype=torch.float32 asks for the FP32 C (the FP32-C entries).
"""

from __future__ import annotations

import importlib.util

from . import _library, _precision
from ._handles import reload, status
from ._layout import GemmArguments, plan_bmm, plan_mm
from ._library import GemmtuneError, NoDeviceError, UnsupportedDeviceError, library_path, tuner_path
from ._workflow import Explanation, TuningInterrupted, check_results, explain, installed_results, record, tune, warmup

__version__ = "0.1.0"
PRECISIONS = tuple(_precision.PRECISIONS)  # the names precision= takes

_library.check_library_present()

if importlib.util.find_spec("torch") is not None:
    import torch as _torch

    from . import _torch_calls, _torch_ops  # noqa: F401  (registers torch.ops.gemmtune.*)
    from . import nn  # noqa: F401

    _through_op = _torch_calls.through_op
    _plan_mm, _plan_bmm = plan_mm, plan_bmm
    _Tensor = _torch.Tensor
    # The direct path's lookup (_torch_calls.direct_runs), read inline: each call of ours costs host
    # time where torch's own call is what runs. Never while compiling (the op must be in the graph).
    _skip_direct = _torch.compiler.is_compiling
    _direct_runs, _direct_run = _torch_calls.direct_runs, _torch_calls.direct_run
    _legacy_tf32_allowed, _grad_enabled = _torch_calls._legacy_tf32_allowed, _torch.is_grad_enabled
else:  # pragma: no cover - exercised by the CPU tier without torch
    _torch = None

    class _Tensor:  # nothing is one
        pass

    def _skip_direct():  # no tensors, no direct path
        return True


def _check_torch(name, **tensors):
    for argument, t in tensors.items():
        _torch_calls.check_tensor(name, argument, t)
    _precision.check_operand_dtypes(name, [(k, t.dtype) for k, t in tensors.items() if k != "c"])


def mm(a, b, *, precision=None, out_dtype=None):
    """a @ b for 2-D CUDA arrays (torch tensors or CuPy arrays) of float32, bfloat16 or float16; a
    fresh contiguous result on the current stream. precision: None (as torch.mm computes: fp32, or
    tf32 where torch allows TF32), "fp32", "tf32" or "3xtf32" for float32 operands, "bf16" or "fp16"
    for 16-bit ones. out_dtype: None (the operands' dtype; for 16-bit operands the library writes C
    in it, from the c16 entries) or torch.float32 (the library's FP32 C, from the FP32-C entries)."""
    if precision is None and out_dtype is None and not _skip_direct():
        try:  # direct_key's key
            run = _direct_runs.get((_plan_mm, type(a), type(b), a.shape, a.stride(), b.shape, b.stride(), a.dtype,
                                    b.dtype, a.get_device(), b.get_device(), _legacy_tf32_allowed(),
                                    _grad_enabled() and (a.requires_grad or b.requires_grad)))
        except AttributeError:  # not tensors: the general path names the argument
            run = None
        except RuntimeError:  # the legacy TF32 getter refuses once torch's newer setting was used
            run = _direct_run(_plan_mm, a, b)
        if run is not None:
            return run(a, b)
    if isinstance(a, _Tensor):
        if _through_op(a, b):
            _check_torch("gemmtune.mm", a=a, b=b)
            return _torch.ops.gemmtune.mm(a, b, precision=precision, out_dtype=out_dtype)
        return _torch_calls.mm(a, b, precision, out_dtype, remember=True)
    from . import _cuda_arrays
    return _cuda_arrays.mm(a, b, precision, out_dtype)


def bmm(a, b, *, precision=None, out_dtype=None):
    """Batched a @ b for 3-D arrays (batch, m, k) @ (batch, k, n); a batch stride of 0 (an expanded
    operand) shares one matrix, with no copy. precision and out_dtype as for mm."""
    if precision is None and out_dtype is None and not _skip_direct():
        try:  # direct_key's key
            run = _direct_runs.get((_plan_bmm, type(a), type(b), a.shape, a.stride(), b.shape, b.stride(), a.dtype,
                                    b.dtype, a.get_device(), b.get_device(), _legacy_tf32_allowed(),
                                    _grad_enabled() and (a.requires_grad or b.requires_grad)))
        except AttributeError:  # not tensors: the general path names the argument
            run = None
        except RuntimeError:  # the legacy TF32 getter refuses once torch's newer setting was used
            run = _direct_run(_plan_bmm, a, b)
        if run is not None:
            return run(a, b)
    if isinstance(a, _Tensor):
        if _through_op(a, b):
            _check_torch("gemmtune.bmm", a=a, b=b)
            return _torch.ops.gemmtune.bmm(a, b, precision=precision, out_dtype=out_dtype)
        return _torch_calls.bmm(a, b, precision, out_dtype, remember=True)
    from . import _cuda_arrays
    return _cuda_arrays.bmm(a, b, precision, out_dtype)


def addmm(c, a, b, *, beta=1.0, alpha=1.0, precision=None, out_dtype=None):
    """beta * c + alpha * (a @ b) as torch.addmm: c broadcasts to the product's shape and is scaled
    and added in FP32, each result rounded once. c may be the operands' dtype (for a 16-bit result,
    the library's 16-bit C, read as cublasGemmEx reads it) or float32 (added whole to an FP32 C, then
    rounded to a 16-bit result). precision and out_dtype as for mm."""
    if isinstance(a, _Tensor):
        if _through_op(c, a, b):
            _check_torch("gemmtune.addmm", c=c, a=a, b=b)
            return _torch.ops.gemmtune.addmm(c, a, b, float(beta), float(alpha), precision=precision,
                                             out_dtype=out_dtype)
        return _torch_calls.addmm(c, a, b, beta, alpha, precision, out_dtype)
    from . import _cuda_arrays
    return _cuda_arrays.addmm(c, a, b, beta, alpha, precision, out_dtype)


def library_version() -> str:
    """The version libgemmtune reports (gemmtune_version)."""
    return _library.lib().gemmtune_version().decode()


__all__ = [
    "mm", "bmm", "addmm", "PRECISIONS", "explain", "record", "tune", "warmup", "reload", "status", "check_results",
    "installed_results", "library_version", "library_path", "tuner_path", "plan_mm", "plan_bmm", "GemmArguments",
    "Explanation", "GemmtuneError", "NoDeviceError", "UnsupportedDeviceError", "TuningInterrupted", "__version__",
]
