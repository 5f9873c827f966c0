"""libgemmtune.so through ctypes: where it is found, the C API's prototypes (gemmtune/gemmtune.h), and
the status codes turned into Python exceptions.

The binding is deliberately thin: every call is one C function of the public header, so Python runs
what C and C++ applications run. The library is found next to this package (a wheel or `pip install .`
puts it in gemmtune/lib/), or at $GEMMTUNE_LIBRARY (a build tree, as the CPU tests use it). It is
loaded at the first call, not at import, so that an application that imports torch after gemmtune
still gets torch's CUDA libraries (both need libcudart.so.13 and libcublas.so.13, which the dynamic
loader shares by name).
"""

from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent

# gemmtune_status_t, by value.
STATUS_NAMES = (
    "success",
    "invalid_argument",
    "no_device",
    "unsupported_device",
    "results_not_found",
    "invalid_results",
    "results_for_other_device",
    "compile_failed",
    "cuda_error",
    "out_of_memory",
    "internal_error",
)
SUCCESS, INVALID_ARGUMENT, NO_DEVICE, UNSUPPORTED_DEVICE = 0, 1, 2, 3
RESULTS_NOT_FOUND, INVALID_RESULTS, RESULTS_FOR_OTHER_DEVICE = 4, 5, 6
OUT_OF_MEMORY = 9
OP_N, OP_T = 0, 1
CONFIG_SOURCE_NAMES = ("exact_shape", "nearest_shape", "same_architecture", "built_in_default", "portfolio")


class GemmtuneError(RuntimeError):
    """A status of the C API that is neither success nor a bad argument; .status is its name."""

    def __init__(self, message: str, status: str = "internal_error"):
        super().__init__(message)
        self.status = status


class NoDeviceError(GemmtuneError):
    """No CUDA driver or device (status no_device; gemm-tune's exit code 3)."""


class UnsupportedDeviceError(GemmtuneError):
    """A GPU below compute capability 7.5."""


def status_name(status: int) -> str:
    return STATUS_NAMES[status] if 0 <= status < len(STATUS_NAMES) else f"status {status}"


def raise_for_status(status: int, what: str) -> None:
    """Raises the exception a status means; what names the call, e.g. 'gemmtune.mm'."""
    if status == SUCCESS:
        return
    name = status_name(status)
    if status == INVALID_ARGUMENT:
        raise ValueError(f"{what}: the library refused the arguments (invalid_argument)")
    if status == NO_DEVICE:
        raise NoDeviceError(f"{what}: no CUDA driver or device (no_device)", name)
    if status == UNSUPPORTED_DEVICE:
        raise UnsupportedDeviceError(f"{what}: the GPU is below compute capability 7.5 (unsupported_device)", name)
    if status == OUT_OF_MEMORY:
        raise MemoryError(f"{what}: out of memory (out_of_memory)")
    raise GemmtuneError(f"{what}: {name}", name)


def library_path() -> Path:
    """The library this package loads: $GEMMTUNE_LIBRARY, else gemmtune/lib/libgemmtune.so."""
    env = os.environ.get("GEMMTUNE_LIBRARY")
    return Path(env) if env else PACKAGE_DIR / "lib" / "libgemmtune.so"


def tuner_path() -> Path:
    """The gemm-tune program: $GEMMTUNE_TUNER, else the one installed with the package."""
    env = os.environ.get("GEMMTUNE_TUNER")
    return Path(env) if env else PACKAGE_DIR / "bin" / "gemm-tune"


def check_library_present() -> None:
    """Import-time check: an ImportError naming the path tried, instead of a failure at first call."""
    path = library_path()
    if not path.is_file():
        hint = ("set GEMMTUNE_LIBRARY to a built libgemmtune.so" if "GEMMTUNE_LIBRARY" not in os.environ
                else "GEMMTUNE_LIBRARY names no file")
        raise ImportError(f"gemmtune: the library was not found at {path} ({hint}, or install the package "
                          f"with `pip install .` from the gemm-tune checkout)")


_P = ctypes.c_void_p
_I = ctypes.c_int
_LL = ctypes.c_longlong
_F = ctypes.c_float
_S = ctypes.c_size_t
_STR = ctypes.c_char_p

class SgemmProblem(ctypes.Structure):
    """gemmtune_sgemm_problem_t: a problem's arguments as one value, filled once per problem so a
    call passes seven values instead of twenty (each argument of a ctypes call costs); every
    precision and C type takes it (gemmtune_run_gemm_problem, gemmtune_run_gemm_problem_ex)."""
    _fields_ = [("op_a", _I), ("op_b", _I), ("m", _I), ("n", _I), ("k", _I), ("lda", _I), ("ldb", _I), ("ldc", _I),
                ("batch_count", _I), ("stride_a", _LL), ("stride_b", _LL), ("stride_c", _LL), ("alpha", _F),
                ("beta", _F)]


def sgemm_problem(args, alpha: float, beta: float) -> SgemmProblem:
    """The C value of a planned problem (_layout.GemmArguments); C is a fresh contiguous array."""
    return SgemmProblem(args.op_a, args.op_b, args.m, args.n, args.k, args.lda, args.ldb, args.n, args.batch,
                        args.stride_a, args.stride_b, args.m * args.n, alpha, beta)


def choose_gemm(handle, precision: int, c_type: int, *arguments) -> int:
    """What runs for a problem of that C type and why (gemmtune_choose_gemm_ex; C_FP32 asks what
    gemmtune_choose_gemm would). arguments: the rest of gemmtune_choose_gemm's (op_a, op_b, m, n, k, a,
    lda, stride_a, b, ldb, stride_b, ldc, stride_c, batch_count, source, config_name, capacity, reason,
    capacity)."""
    return lib().gemmtune_choose_gemm_ex(handle, precision, c_type, *arguments)


# name: (restype, argtypes), as gemmtune.h declares them (enums are int; pointers are addresses).
_PROTOTYPES = {
    "gemmtune_create": (_I, [ctypes.POINTER(_P), _STR]),
    "gemmtune_destroy": (None, [_P]),
    "gemmtune_handle_status": (_I, [_P]),
    "gemmtune_handle_message": (_STR, [_P]),
    "gemmtune_sgemm_strided_batched": (
        _I, [_P, _I, _I, _I, _I, _I, _F, _P, _I, _LL, _P, _I, _LL, _F, _P, _I, _LL, _I, _P]),
    "gemmtune_run_sgemm_problem": (_I, [_P, ctypes.POINTER(SgemmProblem), _P, _P, _P, _P]),
    "gemmtune_run_gemm_problem": (_I, [_P, _I, ctypes.POINTER(SgemmProblem), _P, _P, _P, _P]),
    "gemmtune_run_gemm_problem_ex": (_I, [_P, _I, _I, ctypes.POINTER(SgemmProblem), _P, _P, _P, _P]),
    "gemmtune_run_gemm_problem_bias": (_I, [_P, _I, _I, ctypes.POINTER(SgemmProblem), _P, _P, _P, _P, _P]),
    "gemmtune_choose_gemm": (
        _I, [_P, _I, _I, _I, _I, _I, _I, _P, _I, _LL, _P, _I, _LL, _I, _LL, _I, ctypes.POINTER(_I), _STR, _S, _STR,
             _S]),
    "gemmtune_choose_gemm_ex": (
        _I, [_P, _I, _I, _I, _I, _I, _I, _I, _P, _I, _LL, _P, _I, _LL, _I, _LL, _I, ctypes.POINTER(_I), _STR, _S,
             _STR, _S]),
    "gemmtune_choose_strided_batched": (
        _I, [_P, _I, _I, _I, _I, _I, _P, _I, _LL, _P, _I, _LL, _I, _LL, _I, ctypes.POINTER(_I), _STR, _S, _STR, _S]),
    "gemmtune_warmup": (_I, [_P, _STR, ctypes.POINTER(_I), _STR, _S]),
    "gemmtune_record_start": (_I, [_STR, _STR, _S]),
    "gemmtune_record_stop": (_I, [_STR, _S]),
    "gemmtune_check_results": (_I, [_STR, _STR, _S]),
    "gemmtune_status_name": (_STR, [_I]),
    "gemmtune_config_source_name": (_STR, [_I]),
    "gemmtune_version": (_STR, []),
}

_lock = threading.Lock()
_library = None


def lib() -> ctypes.CDLL:
    """The loaded library with its prototypes declared (loaded once, at the first call)."""
    global _library
    if _library is not None:
        return _library
    with _lock:
        if _library is None:
            path = library_path()
            try:
                loaded = ctypes.CDLL(str(path))
            except OSError as e:
                raise ImportError(f"gemmtune: cannot load {path}: {e}") from e
            for name, (restype, argtypes) in _PROTOTYPES.items():
                try:
                    function = getattr(loaded, name)
                except AttributeError as e:
                    raise ImportError(f"gemmtune: {path} has no {name}: an older library?") from e
                function.restype = restype
                function.argtypes = argtypes
            _library = loaded
    return _library


def text_buffer(capacity: int = 4096):
    return ctypes.create_string_buffer(capacity)


def decode(buffer) -> str:
    return buffer.value.decode("utf-8", "replace")


def encode_path(path) -> bytes:
    return os.fsencode(os.fspath(path))
