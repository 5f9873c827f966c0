"""gemmtune for Python: the tuned FP32 GEMMs of libgemmtune on torch tensors and CuPy arrays.

    import torch, gemmtune
    c = gemmtune.mm(a, b)                  # CUDA float32; a transposed view runs as op T, no copy
    model = gemmtune.nn.replace_linear(model)   # or gemmtune.nn.Linear(in, out) as a drop-in
    with gemmtune.record("calls.jsonl"):   # the problems the model really calls
        model(x)
    gemmtune.tune(sizes_from="calls.jsonl", gpu="auto")   # bundled gemm-tune, then reloads

A thin layer over the C API (gemmtune/gemmtune.h) through ctypes: no compiled Python module, so one
wheel serves every Python 3 and every torch version. With torch installed, importing gemmtune also
registers torch.ops.gemmtune.mm, bmm, addmm and linear (fake kernels and autograd included), which
torch.compile(fullgraph=True) keeps in the graph.
"""

from __future__ import annotations

import importlib.util

from . import _library
from ._handles import reload, status
from ._layout import GemmArguments, plan_bmm, plan_mm
from ._library import GemmtuneError, NoDeviceError, UnsupportedDeviceError, library_path, tuner_path
from ._workflow import Explanation, TuningInterrupted, check_results, explain, installed_results, record, tune, warmup

__version__ = "0.1.0"

_library.check_library_present()

if importlib.util.find_spec("torch") is not None:
    import torch as _torch

    from . import _torch_calls, _torch_ops  # noqa: F401  (registers torch.ops.gemmtune.*)
    from . import nn  # noqa: F401

    _through_op = _torch_calls.through_op
else:  # pragma: no cover - exercised by the CPU tier without torch
    _torch = None


def _is_torch(x) -> bool:
    return _torch is not None and isinstance(x, _torch.Tensor)


def _check_torch(name, **tensors):
    for argument, t in tensors.items():
        _torch_calls.check_tensor(name, argument, t)


def mm(a, b):
    """a @ b for 2-D float32 CUDA arrays (torch tensors or CuPy arrays); a fresh contiguous result
    on the current stream."""
    if _is_torch(a):
        if _through_op(a, b):
            _check_torch("gemmtune.mm", a=a, b=b)
            return _torch.ops.gemmtune.mm(a, b)
        return _torch_calls.mm(a, b)
    from . import _cuda_arrays
    return _cuda_arrays.mm(a, b)


def bmm(a, b):
    """Batched a @ b for 3-D arrays (batch, m, k) @ (batch, k, n); a batch stride of 0 (an expanded
    operand) shares one matrix, with no copy."""
    if _is_torch(a):
        if _through_op(a, b):
            _check_torch("gemmtune.bmm", a=a, b=b)
            return _torch.ops.gemmtune.bmm(a, b)
        return _torch_calls.bmm(a, b)
    from . import _cuda_arrays
    return _cuda_arrays.bmm(a, b)


def addmm(c, a, b, *, beta=1.0, alpha=1.0):
    """beta * c + alpha * (a @ b) as torch.addmm: c broadcasts to the product's shape."""
    if _is_torch(a):
        if _through_op(c, a, b):
            _check_torch("gemmtune.addmm", c=c, a=a, b=b)
            return _torch.ops.gemmtune.addmm(c, a, b, float(beta), float(alpha))
        return _torch_calls.addmm(c, a, b, beta, alpha)
    from . import _cuda_arrays
    return _cuda_arrays.addmm(c, a, b, beta, alpha)


def library_version() -> str:
    """The version libgemmtune reports (gemmtune_version)."""
    return _library.lib().gemmtune_version().decode()


__all__ = [
    "mm", "bmm", "addmm", "explain", "record", "tune", "warmup", "reload", "status", "check_results",
    "installed_results", "library_version", "library_path", "tuner_path", "plan_mm", "plan_bmm", "GemmArguments",
    "Explanation", "GemmtuneError", "NoDeviceError", "UnsupportedDeviceError", "TuningInterrupted", "__version__",
]
