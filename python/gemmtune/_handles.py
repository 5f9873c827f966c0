"""One gemmtune handle per CUDA device, created on first use with that device current and kept for
the process, as an application keeps one cuBLAS handle. Every handle loads the same results: the
path given to reload(), else $GEMMTUNE_RESULTS, else the results installed with the package. The
choice of kernel comes from files, not from timing at run time, so every process and rank that
loads the same results runs the same kernels.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import threading
import warnings

from . import _library as L

_lock = threading.Lock()
_handles: dict = {}  # device index -> handle address (int)
_status: dict = {}  # device index -> (status name, message)
_results_path = None  # None: $GEMMTUNE_RESULTS or the installed results
# Caches of what the old handles chose (the Python side's per-shape plans): reload() empties them.
choice_caches: list = []
recording = 0  # gemmtune.record blocks open: every call must reach the library to be counted
# Caches whose entries may run torch's call instead of the library's: emptied when recording starts.
bypassing_caches: list = []


def start_recording() -> None:
    global recording
    with _lock:
        recording += 1
        for cache in bypassing_caches:
            cache.clear()


def stop_recording() -> None:
    global recording
    with _lock:
        recording -= 1


def get(device: int, device_context=None) -> int:
    """The handle for CUDA device `device`; device_context() makes it current while creating."""
    handle = _handles.get(device)
    if handle is not None:
        return handle
    with _lock:
        handle = _handles.get(device)
        if handle is None:
            with (device_context() if device_context else contextlib.nullcontext()):
                handle = _create(device)
            _handles[device] = handle
    return handle


def _create(device: int) -> int:
    lib = L.lib()
    out = ctypes.c_void_p()
    results = L.encode_path(_results_path) if _results_path is not None else None
    status = lib.gemmtune_create(ctypes.byref(out), results)
    if not out.value:
        L.raise_for_status(status, "gemmtune: creating a handle")
        raise L.GemmtuneError("gemmtune: creating a handle failed")
    message = (lib.gemmtune_handle_message(out.value) or b"").decode("utf-8", "replace")
    if status in (L.NO_DEVICE, L.UNSUPPORTED_DEVICE):
        lib.gemmtune_destroy(out.value)
        L.raise_for_status(status, f"gemmtune: device {device}")
    _status[device] = (L.status_name(status), message)
    explicit = _results_path is not None or bool(os.environ.get("GEMMTUNE_RESULTS"))
    if status in (L.INVALID_RESULTS, L.RESULTS_FOR_OTHER_DEVICE) or (status == L.RESULTS_NOT_FOUND and explicit):
        warnings.warn(f"gemmtune: {L.status_name(status)}: {message} (cuBLAS serves what the results do not)",
                      RuntimeWarning, stacklevel=4)
    return out.value


def status(device: int = 0):
    """(status name, message) of device's handle, as gemmtune_handle_status reports it; None before
    the handle exists."""
    return _status.get(device)


def reload(results=None) -> None:
    """Drops every handle (each waits for the work it queued) so the next call loads results afresh:
    from `results` (a results file or directory) if given, else $GEMMTUNE_RESULTS or the installed
    ones. CUDA graphs captured before hold kernels of the old handles: capture them again."""
    global _results_path
    with _lock:
        old = list(_handles.values())
        _handles.clear()
        _status.clear()
        _results_path = os.fspath(results) if results is not None else None
        for cache in choice_caches:
            cache.clear()
    for handle in old:
        L.lib().gemmtune_destroy(handle)


def results_path():
    return _results_path
