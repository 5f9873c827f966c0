"""Record, tune, warm up, explain: the record -> tune -> ship loop from Python. Recording and warm-up
are the library's (gemmtune_record_start/stop, gemmtune_warmup: one writer and one reader of the
record format); tuning runs the bundled gemm-tune in a subprocess, so a kernel that faults costs the
tuner's worker, never the caller, and its exit codes become exceptions.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple, Optional, Sequence

from . import _handles
from . import _library as L
from ._layout import plan_bmm, plan_mm


class TuningInterrupted(L.GemmtuneError):
    """gemm-tune was interrupted (exit 130); calling tune() again resumes from its log."""


class Explanation(NamedTuple):
    implementation: str  # "tuned_kernel", "cublas" or "cublaslt"
    source: str  # exact_shape, nearest_shape, same_architecture, built_in_default, portfolio
    config: str  # the kernel's canonical name, or "cublas" / "cublaslt"
    reason: str  # one line: what decided it


def _device_context(device: int):
    if "torch" in sys.modules:
        import torch
        if torch.cuda.is_available():
            return lambda: torch.cuda.device(device)
    if "cupy" in sys.modules:
        import cupy
        return lambda: cupy.cuda.Device(device)
    return None


def _current_device() -> int:
    if "torch" in sys.modules:
        import torch
        if torch.cuda.is_available():
            return torch.cuda.current_device()
    return 0


def handle(device: Optional[int] = None) -> int:
    device = _current_device() if device is None else device
    return _handles.get(device, _device_context(device))


@contextlib.contextmanager
def record(path):
    """Counts the problems every gemmtune call makes inside the block (and any C or C++ code of the
    process that uses libgemmtune) and adds them to path, the JSON Lines file that
    `gemm-tune --sizes-from` and tune(sizes_from=...) read. Each is recorded with the key it was
    called with: a 16-bit call returning its operands' dtype as a c16 problem ("c": "bf16"), one with
    out_dtype=torch.float32 as an FP32-C problem. Calls replayed from CUDA graphs never
    reach the library and are not counted: record an eager run."""
    message = L.text_buffer()
    status = L.lib().gemmtune_record_start(L.encode_path(path), message, len(message))
    if status == L.INVALID_ARGUMENT:
        raise ValueError(f"gemmtune.record: {L.decode(message)}")
    L.raise_for_status(status, "gemmtune.record")
    _handles.start_recording()
    try:
        yield Path(path)
    finally:
        _handles.stop_recording()
        status = L.lib().gemmtune_record_stop(message, len(message))
        if status == L.INVALID_ARGUMENT:
            raise ValueError(f"gemmtune.record: {L.decode(message)}")
        L.raise_for_status(status, "gemmtune.record")


def warmup(record_path, device: Optional[int] = None) -> int:
    """Compiles (NVRTC, through the disk cache) what every problem of a record file runs on the
    device, so no later call compiles: call it before capturing CUDA graphs. Returns how many
    problems the file held."""
    message = L.text_buffer()
    count = ctypes.c_int(0)
    status = L.lib().gemmtune_warmup(handle(device), L.encode_path(record_path), ctypes.byref(count), message,
                                     len(message))
    if status == L.INVALID_ARGUMENT:
        raise ValueError(f"gemmtune.warmup: {L.decode(message)}")
    L.raise_for_status(status, f"gemmtune.warmup: {L.decode(message)}")
    return count.value


def _describe(name, a, b, precision=None, out_dtype=None):
    """(GemmArguments, pointer of a, pointer of b, device, gemmtune_precision_t, gemmtune_c_type_t) of
    arrays a and b, torch or CUDA arrays, as gemmtune.mm(a, b, precision=, out_dtype=) would run them:
    a 16-bit result is the c16 problem (C_OPERAND_TYPE), out_dtype float32 the FP32-C one."""
    if "torch" in sys.modules:
        import torch
        if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
            from . import _torch_calls
            device = _torch_calls._check_pair(name, a, b)
            planner = plan_mm if a.dim() == 2 else plan_bmm
            value, c_type, _, _ = _torch_calls._precision_of(name, a.dtype, precision, out_dtype,
                                                             _torch_calls._tf32_for(a.dtype, precision))
            return (planner(name, a.shape, a.stride(), b.shape, b.stride()), a.data_ptr(), b.data_ptr(), device,
                    value, c_type)
    from . import _cuda_arrays
    a = _cuda_arrays.as_cupy(name, "a", a)
    b = _cuda_arrays.as_cupy(name, "b", b)
    value, c_type, _ = _cuda_arrays.types_of(name, a, b, precision, out_dtype)
    planner = plan_mm if a.ndim == 2 else plan_bmm
    strides_a = tuple(s // a.itemsize for s in a.strides)
    strides_b = tuple(s // b.itemsize for s in b.strides)
    return planner(name, a.shape, strides_a, b.shape, strides_b), a.data.ptr, b.data.ptr, a.device.id, value, c_type


def explain(a, b, *, precision: Optional[str] = None, out_dtype=None) -> Explanation:
    """What gemmtune.mm(a, b, precision=precision, out_dtype=out_dtype) (or bmm, for 3-D operands)
    runs and why; compiles it if needed, so it also warms the problem up. For 16-bit operands the
    answer is that of the c16 problem (C in their dtype, gemmtune_choose_gemm_ex), or of the FP32-C
    one with out_dtype=torch.float32."""
    name = "gemmtune.explain"
    args, pa, pb, device, value, c_type = _describe(name, a, b, precision, out_dtype)
    source = ctypes.c_int(0)
    config = L.text_buffer(256)
    reason = L.text_buffer(4096)
    status = L.choose_gemm(
        handle(device), value, c_type, args.op_a, args.op_b, max(args.m, 1), max(args.n, 1), max(args.k, 1), pa,
        args.lda, args.stride_a, pb, args.ldb, args.stride_b, max(args.n, 1), args.m * args.n, max(args.batch, 1),
        ctypes.byref(source), config, len(config), reason, len(reason))
    L.raise_for_status(status, name)
    config_name = L.decode(config)
    source_name = L.CONFIG_SOURCE_NAMES[source.value] if 0 <= source.value < len(L.CONFIG_SOURCE_NAMES) else "?"
    implementation = config_name if config_name in ("cublas", "cublaslt") else "tuned_kernel"
    return Explanation(implementation, source_name, config_name,
                       L.decode(reason))


def check_results(path) -> None:
    """Validates a results file or directory as a handle would load it, without a GPU; raises
    ValueError with the library's message for one that fails."""
    message = L.text_buffer(1 << 16)
    status = L.lib().gemmtune_check_results(L.encode_path(path), message, len(message))
    if status in (L.INVALID_RESULTS, L.RESULTS_NOT_FOUND, L.INVALID_ARGUMENT):
        raise ValueError(f"gemmtune.check_results: {L.status_name(status)}: {L.decode(message)}")
    L.raise_for_status(status, "gemmtune.check_results")


def installed_results() -> Path:
    """The results shipped with the package."""
    return L.PACKAGE_DIR / "share" / "gemmtune" / "results"


def tune(sizes_from=None, sizes: Optional[Sequence[str]] = None, gpu="auto", results_dir="gemmtune-results",
         budget: Optional[int] = None, time_budget: Optional[float] = None, extra_args: Sequence[str] = (),
         reload: bool = True) -> Path:
    """Runs the bundled gemm-tune on the problems of a record file (sizes_from) or a list of sizes
    ("512", "64x4096x4096:nt", "8x4096x4096:bf16:c16", ...), merging its winners into
    results_dir/<gpu>.json, then (reload)
    makes every later call use results_dir. A results_dir that does not exist yet starts as a copy of
    the shipped results, so their winners stay and the search starts from the most similar GPUs'.
    Both reach gemm-tune as given: a record file's problems keep their precision and C type (16-bit
    calls that return their operands' dtype are recorded as c16 problems, "c": "bf16" or "fp16", and
    are tuned as such, apart from FP32-C ones). Exit codes: 2 -> ValueError (gemm-tune's message),
    3 -> NoDeviceError, 130 -> TuningInterrupted, others -> GemmtuneError. Returns results_dir."""
    if (sizes_from is None) == (sizes is None):
        raise ValueError("gemmtune.tune: give exactly one of sizes_from (a record file) and sizes")
    tuner = L.tuner_path()
    if not tuner.is_file():
        raise FileNotFoundError(f"gemmtune.tune: the tuner was not found at {tuner} (set GEMMTUNE_TUNER)")
    results_dir = Path(results_dir)
    if not results_dir.exists():
        shipped = installed_results()
        if shipped.is_dir():
            shutil.copytree(shipped, results_dir)
        else:
            results_dir.mkdir(parents=True)
    command = [str(tuner), "--gpu", str(gpu), "--results-dir", str(results_dir)]
    if sizes_from is not None:
        command += ["--sizes-from", os.fspath(sizes_from)]
    else:
        command += ["--sizes", ",".join(str(s) for s in sizes)]
    if budget is not None:
        command += ["--budget", str(int(budget))]
    if time_budget is not None:
        command += ["--time-budget", str(time_budget)]
    command += [str(a) for a in extra_args]
    run(command, "gemmtune.tune")
    if reload:
        _handles.reload(results_dir)
    return results_dir


def run(command, what: str) -> None:
    """Runs gemm-tune with its output passed on, keeping stderr's last lines for the exception."""
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, errors="replace")
    tail = []
    for line in process.stderr:
        sys.stderr.write(line)
        tail = (tail + [line.rstrip("\n")])[-20:]
    code = process.wait()
    if code == 0:
        return
    last = next((line for line in reversed(tail) if line.strip()), "")
    if code == 2:
        raise ValueError(f"{what}: {last}")
    if code == 3:
        raise L.NoDeviceError(f"{what}: {last or 'no usable GPU'}", "no_device")
    if code == 130:
        raise TuningInterrupted(f"{what}: interrupted; run it again to resume", "interrupted")
    raise L.GemmtuneError(f"{what}: gemm-tune exited with {code}: " + "\n".join(tail[-5:]), "tuner_failed")
