#!/usr/bin/env python3
"""Triton's autotuned FP32 matmul and torch.mm, measured as peers of gemm-tune on the benchmark shapes.

The design brief asks for peers in the same run beside cuBLAS: "Triton's autotuned matmul and torch.mm
where Python is available". This script is that peer run. The Triton kernel is the standard tiled
matmul of Triton's matrix-multiplication tutorial, autotuned (key M, N, K) over all of that tutorial's
CUDA configurations plus a few small and skinny tiles, in IEEE FP32 (tl.dot with input_precision="ieee",
no TF32). torch.mm runs with TF32 off, so it is cuBLAS SGEMM underneath, and it is the ratio's baseline.
Both are checked against a float64 reference with the project's bound, |C - R| <= 8 K 2^-24 (|A||B|),
then timed as `gemm-tune bench` times: warm-up (autotuning included) first, then rounds that alternate
Triton and torch.mm, each sample a batch of launches (a CUDA graph where capture works) over rotating
input buffers that cover three times the L2, CUDA events, median and spread of every sample kept.
Run it on a GPU machine with PyTorch and Triton (no network needed):
    python3 scripts/peers/triton_sgemm.py                      # the 11 benchmark shapes
    python3 scripts/peers/triton_sgemm.py --sizes 512,64x4096x4096 --rounds 50
It writes results/peers-triton-<gpu slug>.json (schema gemmtune.peers/1; entries with the fields of
results/bench-*.json, "tuned" being Triton's winner and "cublas" torch.mm) and prints a table. Exit
status: 0 all shapes measured, 1 some shape incorrect or failed, 2 no PyTorch, Triton or CUDA device.
"""

import argparse
import datetime
import json
import math
import os
import re
import sys
import time

SCHEMA = "gemmtune.peers/1"
DEFAULT_SIZES = "512,1000,1024,2048,3000,4095,4096,8192,64x4096x4096,4096x4096x64,4096x64x4096"
MAX_DIMENSION = 65536  # tuner/problem.hpp kMaxDimension
ERROR_CONSTANT = 8  # c in |C - R| <= c * K * 2^-24 * (|A||B|)_ij
UNIT_ROUNDOFF = 2.0**-24
TARGET_SAMPLE_MS = 0.5  # as tuner/gpu_bench.cpp: shorter batches measure launch gaps and clock ramps
MIN_ROUNDS = 30
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Set in main() once the imports succeed; the kernel below reads tl as a module global when Triton
# compiles it, so --help and the error paths never need Triton.
tl = None


# ---------------------------------------------------------------------------------------------------
# Sizes: the same syntax and checks as gemm-tune's --sizes (tuner/problem.cpp).


def parse_shape(raw):
    entry = raw.strip(" \t")
    if not entry:
        raise ValueError("empty size in the size list")
    parts = re.split(r"[xX]", entry)
    if len(parts) not in (1, 3):
        raise ValueError(f"size '{entry}' must be N or MxNxK")
    dims = []
    for token in parts:
        if not token:
            raise ValueError(f"size '{entry}' has an empty dimension")
        if token.startswith("-"):
            raise ValueError(f"size '{entry}' is negative")
        if not token.isascii() or not token.isdigit():
            raise ValueError(f"size '{entry}' is not a number (use N or MxNxK)")
        if len(token) > 9 or int(token) > MAX_DIMENSION:
            raise ValueError(f"size '{entry}' is too large (each dimension at most {MAX_DIMENSION})")
        if int(token) == 0:
            raise ValueError(f"size '{entry}' has a zero dimension")
        dims.append(int(token))
    return (dims[0],) * 3 if len(dims) == 1 else tuple(dims)


def parse_sizes(text):
    shapes = []
    for raw in text.split(","):
        shape = parse_shape(raw)
        if shape not in shapes:
            shapes.append(shape)
    return shapes


def shape_label(m, n, k):
    return str(m) if m == n == k else f"{m}x{n}x{k}"


def slugify(name):
    """core/device_profile.cpp slugify: lowercase, runs of anything else become one '-'."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug or "unknown-gpu"


# ---------------------------------------------------------------------------------------------------
# The Triton kernel.


def autotune_configs(triton):
    def config(bm, bn, bk, stages, warps, group=8):
        return triton.Config({"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": group},
                             num_stages=stages, num_warps=warps)

    tutorial = [  # python/tutorials/03-matrix-multiplication.py, get_cuda_autotune_config(), all 16
        config(128, 256, 64, 3, 8), config(64, 256, 32, 4, 4), config(128, 128, 32, 4, 4),
        config(128, 64, 32, 4, 4), config(64, 128, 32, 4, 4), config(128, 32, 32, 4, 4),
        config(64, 32, 32, 5, 2), config(32, 64, 32, 5, 2),
        # The tutorial's "fp8" group: with 4-byte elements the deepest do not fit in shared memory;
        # the autotuner records those as out of resources and moves on.
        config(128, 256, 128, 3, 8), config(256, 128, 128, 3, 8), config(256, 64, 128, 4, 4),
        config(64, 256, 128, 4, 4), config(128, 128, 128, 4, 4), config(128, 64, 64, 4, 4),
        config(64, 128, 64, 4, 4), config(128, 32, 64, 4, 4),
    ]
    extra = [  # small, skinny and shallow-K tiles: more blocks for M=64, N=64 and the small cubes
        config(32, 32, 64, 4, 2), config(32, 64, 64, 4, 2), config(64, 32, 64, 4, 2),
        config(64, 64, 32, 4, 4), config(64, 64, 64, 3, 4), config(32, 128, 32, 4, 4),
        config(128, 128, 16, 4, 8), config(64, 128, 16, 5, 4), config(128, 64, 16, 5, 4),
    ]
    return tutorial + extra


def build_sgemm(triton):
    @triton.autotune(configs=autotune_configs(triton), key=["M", "N", "K"])
    @triton.jit
    def sgemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                     BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                     GROUP_SIZE_M: tl.constexpr):
        # Grouped launch order for L2 reuse, as in the tutorial.
        pid = tl.program_id(axis=0)
        num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
        num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
        num_pid_in_group = GROUP_SIZE_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_SIZE_M
        group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_SIZE_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m

        # Rows and columns past the edge wrap (their results are masked at the store); K is masked.
        offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
        offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
        offs_k = tl.arange(0, BLOCK_SIZE_K)
        a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for kb in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - kb * BLOCK_SIZE_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - kb * BLOCK_SIZE_K, other=0.0)
            # "ieee": true FP32 FMAs; the default for float32 inputs would be TF32 tensor cores.
            accumulator = tl.dot(a, b, accumulator, input_precision="ieee")
            a_ptrs += BLOCK_SIZE_K * stride_ak
            b_ptrs += BLOCK_SIZE_K * stride_bk

        offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, accumulator, mask=c_mask)

    def sgemm(a, b, c):
        m, k = a.shape
        n = b.shape[1]
        grid = lambda meta: (triton.cdiv(m, meta["BLOCK_SIZE_M"]) * triton.cdiv(n, meta["BLOCK_SIZE_N"]),)
        sgemm_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                           c.stride(1))

    return sgemm_kernel, sgemm


def config_record(config):
    kw = config.kwargs
    name = (f"triton_{kw['BLOCK_SIZE_M']}x{kw['BLOCK_SIZE_N']}x{kw['BLOCK_SIZE_K']}"
            f"_g{kw['GROUP_SIZE_M']}_s{config.num_stages}_w{config.num_warps}")
    record = {"block_m": kw["BLOCK_SIZE_M"], "block_n": kw["BLOCK_SIZE_N"], "block_k": kw["BLOCK_SIZE_K"],
              "group_m": kw["GROUP_SIZE_M"], "num_stages": config.num_stages, "num_warps": config.num_warps}
    return name, record


def autotune_timings(kernel):
    """The autotuner's own timing of every configuration (ms; null: out of resources or failed)."""
    timings = getattr(kernel, "configs_timings", None) or {}
    out = {}
    for config, value in timings.items():
        if isinstance(value, (list, tuple)):
            value = value[0] if value else None
        value = float(value) if value is not None else None
        out[config_record(config)[0]] = value if value is not None and math.isfinite(value) else None
    return out


# ---------------------------------------------------------------------------------------------------
# Measurement.


def median(values):
    v = sorted(values)
    n = len(v)
    if n == 0:
        return 0.0
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def percentile(values, fraction):
    v = sorted(values)
    if not v:
        return 0.0
    pos = fraction * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (pos - lo) * (v[hi] - v[lo])


def tflops_of(flops, ms):
    return flops / (ms * 1e-3) / 1e12 if ms > 0 else 0.0


def timing_summary(samples_ms, flops):
    """tuner/statistics.cpp timing_summary, plus the samples themselves."""
    med = median(samples_ms)
    return {"median_ms": med, "min_ms": percentile(samples_ms, 0.0), "p10_ms": percentile(samples_ms, 0.1),
            "p90_ms": percentile(samples_ms, 0.9), "max_ms": percentile(samples_ms, 1.0),
            "samples": len(samples_ms), "tflops": tflops_of(flops, med), "samples_ms": samples_ms}


def utc_timestamp():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def device_record(torch, index):
    props = torch.cuda.get_device_properties(index)
    name = torch.cuda.get_device_name(index)
    cc = props.major * 10 + props.minor
    record = {"name": name, "slug": slugify(name), "compute_capability": cc, "sm_count": props.multi_processor_count,
              "l2_megabytes": getattr(props, "L2_cache_size", 0) / (1024.0 * 1024.0),
              "total_memory_gib": props.total_memory / 2.0**30}
    # FP32 peak as core/device_profile.cpp computes it where the clock is known; otherwise the
    # checked-in profile of the same GPU, otherwise none (the percent-of-peak fields are then null).
    clock_khz = getattr(props, "clock_rate", 0) or 0
    if clock_khz > 0:
        lanes = 64 if cc in (75, 80) else 128
        record["fp32_tflops"] = 2.0 * lanes * props.multi_processor_count * clock_khz * 1e-9
        record["fp32_tflops_from"] = "clock"
    else:
        profiles = os.path.join(REPO_ROOT, "configs", "devices")
        for file in sorted(os.listdir(profiles)) if os.path.isdir(profiles) else []:
            try:
                with open(os.path.join(profiles, file)) as f:
                    profile = json.load(f)
            except (OSError, ValueError):
                continue
            if slugify(profile.get("slug", profile.get("name", ""))) == record["slug"]:
                record["fp32_tflops"] = profile.get("fp32_tflops")
                record["fp32_tflops_from"] = "configs/devices/" + file
                break
    return record


class Problem:
    """Rotating operand sets for one shape: together at least three times the L2 (at most 32 sets and
    4 GiB), so a batch of launches reads operands from memory as an application's call would."""

    def __init__(self, torch, m, n, k, seed, l2_bytes):
        self.m, self.n, self.k = m, n, k
        gen = torch.Generator(device="cuda")
        gen.manual_seed(seed)
        a = torch.rand((m, k), device="cuda", dtype=torch.float32, generator=gen) * 2 - 1
        b = torch.rand((k, n), device="cuda", dtype=torch.float32, generator=gen) * 2 - 1
        set_bytes = (m * k + k * n + m * n) * 4
        wanted = -(-3 * max(l2_bytes, 1) // set_bytes)
        sets = max(1, min(wanted, 32, max(1, (4 << 30) // set_bytes)))
        self.a = [a] + [a.clone() for _ in range(sets - 1)]
        self.b = [b] + [b.clone() for _ in range(sets - 1)]
        self.c = [torch.zeros((m, n), device="cuda", dtype=torch.float32) for _ in range(sets)]
        self.sets = sets
        self.set_bytes = set_bytes


class Reference:
    """R = A B and the bound c K 2^-24 (|A||B|)_ij, both in float64 on the GPU, for the first operand set."""

    def __init__(self, problem):
        a64 = problem.a[0].double()
        b64 = problem.b[0].double()
        self.product = a64 @ b64
        self.bound = (a64.abs() @ b64.abs()) * (ERROR_CONSTANT * problem.k * UNIT_ROUNDOFF)

    def worst_ratio(self, torch, c):
        """max over elements of |C - R| / bound. NaN, or an element never written (outputs start as NaN),
        counts as infinitely wrong."""
        error = (c.double() - self.product).abs()
        ratio = torch.where(error == 0, 0.0, error / self.bound)
        return torch.nan_to_num(ratio, nan=math.inf).max().item()


def finite_or_none(x):
    return x if x is not None and math.isfinite(x) else None


def make_batch(torch, launch, reps, sets, use_graph):
    """One sample's work: reps launches over the rotating sets, as a CUDA graph where capture works."""
    def eager():
        for r in range(reps):
            launch(r % sets)

    if not use_graph:
        return eager, "eager"
    try:
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            eager()
        graph.replay()
        torch.cuda.synchronize()
        return graph.replay, "cuda-graph"
    except Exception as e:  # capture is an optimisation: fall back, and say so in the record
        torch.cuda.synchronize()
        return eager, f"eager (graph capture failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})"


def time_interleaved(torch, batches, reps, rounds):
    """Rounds of batches[0], batches[1], ... back to back, one event between consecutive batches and one
    synchronisation at the end, so the GPU never idles between samples. Returns ms per launch."""
    events = [torch.cuda.Event(enable_timing=True) for _ in range(rounds * len(batches) + 1)]
    events[0].record()
    i = 0
    for _ in range(rounds):
        for batch in batches:
            batch()
            i += 1
            events[i].record()
    events[-1].synchronize()
    samples = [[] for _ in batches]
    for i in range(rounds * len(batches)):
        samples[i % len(batches)].append(events[i].elapsed_time(events[i + 1]) / reps)
    return samples


def measure_shape(torch, triton_kernel, sgemm, m, n, k, args, device):
    flops = 2.0 * m * n * k
    entry = {"m": m, "n": n, "k": k, "dtype": "f32", "layout": "nn", "implementation": "triton",
             "baseline": "torch.mm (cuBLAS SGEMM, TF32 off)"}
    l2_bytes = int(device["l2_megabytes"] * 1024 * 1024) or 50 << 20  # unknown L2: assume Hopper's 50 MB
    problem = Problem(torch, m, n, k, args.seed, l2_bytes)

    # Warm-up and correctness: the first Triton call autotunes for this (M, N, K).
    reference = Reference(problem)
    c = problem.c[0]
    c.fill_(math.nan)
    timings_before = getattr(triton_kernel, "configs_timings", None)
    started = time.perf_counter()
    sgemm(problem.a[0], problem.b[0], c)
    torch.cuda.synchronize()
    autotune_s = time.perf_counter() - started
    tuned_now = getattr(triton_kernel, "configs_timings", None) is not timings_before
    name, record = config_record(triton_kernel.best_config)
    triton_worst = reference.worst_ratio(torch, c)
    c.fill_(math.nan)
    torch.mm(problem.a[0], problem.b[0], out=c)
    torch.cuda.synchronize()
    torch_worst = reference.worst_ratio(torch, c)
    del reference
    entry["worst_error_ratio"] = {"triton": finite_or_none(triton_worst), "torch_mm": finite_or_none(torch_worst)}
    entry["error_bound"] = f"|C - R| <= {ERROR_CONSTANT} * K * 2^-24 * (|A||B|)_ij, R in float64"
    entry["autotune"] = {"seconds": autotune_s, "configs": len(triton_kernel.configs),
                         "timings_ms": autotune_timings(triton_kernel) if tuned_now else None}
    entry["tuned"] = {"name": name, "config": record}
    entry["date"] = utc_timestamp()
    wrong = [(who, worst) for who, worst in (("triton", triton_worst), ("torch.mm", torch_worst)) if not worst <= 1.0]
    if wrong:
        entry["status"] = "incorrect"
        entry["detail"] = ", ".join(f"{who} exceeds the error bound ({worst:.3g}x)" for who, worst in wrong)
        return entry

    # Batch size from torch.mm's speed at this shape: enough launches per sample for ~0.5 ms.
    run_triton = lambda s: sgemm(problem.a[s], problem.b[s], problem.c[s])
    run_torch = lambda s: torch.mm(problem.a[s], problem.b[s], out=problem.c[s])
    for s in range(problem.sets):
        run_triton(s)
        run_torch(s)
    probe = time_interleaved(torch, [lambda: run_torch(0)], 1, 3)[0]
    reps = max(1, min(200, math.ceil(TARGET_SAMPLE_MS / max(min(probe), 1e-4))))
    triton_batch, triton_launch = make_batch(torch, run_triton, reps, problem.sets, not args.no_graphs)
    torch_batch, torch_launch = make_batch(torch, run_torch, reps, problem.sets, not args.no_graphs)
    time_interleaved(torch, [triton_batch, torch_batch], reps, 2)  # warm-up of the batches themselves
    triton_ms, torch_ms = time_interleaved(torch, [triton_batch, torch_batch], reps, args.rounds)

    tuned = timing_summary(triton_ms, flops)
    cublas = timing_summary(torch_ms, flops)
    peak = device.get("fp32_tflops")
    entry["tuned"].update(tuned)
    entry["cublas"] = cublas
    entry["percent_of_peak"] = 100 * tuned["tflops"] / peak if peak else None
    entry["cublas_percent_of_peak"] = 100 * cublas["tflops"] / peak if peak else None
    entry["ratio_vs_cublas"] = tuned["tflops"] / cublas["tflops"]
    entry["race_rounds"] = args.rounds
    entry["launches_per_sample"] = reps
    entry["buffer_sets"] = problem.sets
    entry["launch"] = {"triton": triton_launch, "torch_mm": torch_launch}
    entry["status"] = "passed"
    entry["date"] = utc_timestamp()
    return entry


# ---------------------------------------------------------------------------------------------------
# Output.


def write_results(path, header, entries):
    """Entries merge by (m, n, k, dtype, layout) into an existing file of the same schema and GPU, as
    gemm-tune's results do; an unreadable file is kept beside the new one, never dropped."""
    key = lambda e: (e["m"], e["n"], e["k"], e["dtype"], e["layout"])
    kept = []
    if os.path.exists(path):
        try:
            with open(path) as f:
                old = json.load(f)
            if old.get("schema") != SCHEMA or old.get("device", {}).get("slug") != header["device"]["slug"]:
                raise ValueError("another schema or GPU")
            fresh = {key(e) for e in entries}
            kept = [e for e in old.get("entries", []) if key(e) not in fresh]
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            os.replace(path, path + ".unreadable")
            print(f"warning: {path} kept as {path}.unreadable ({e})", file=sys.stderr)
    doc = dict(header)
    doc["entries"] = sorted(kept + entries, key=key)
    passed = [e for e in doc["entries"] if e.get("status") == "passed"]
    doc["geometric_mean_ratio_vs_cublas"] = (
        math.exp(sum(math.log(e["ratio_vs_cublas"]) for e in passed) / len(passed)) if passed else None)
    doc["geometric_mean_shapes"] = len(passed)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True, allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)


def print_table(title, entries):
    print(f"\n{title}")
    print(f"{'shape':<16} {'Triton config':<30} {'Triton TF/s':>11} {'torch.mm TF/s':>13} {'ratio':>8}")
    for e in entries:
        label = shape_label(e["m"], e["n"], e["k"])
        config = e.get("tuned", {}).get("name", "-")
        if e["status"] != "passed":
            print(f"{label:<16} {config:<30} {e['status'].upper()}: {e.get('detail', '')}")
            continue
        print(f"{label:<16} {config:<30} {e['tuned']['tflops']:11.2f} {e['cublas']['tflops']:13.2f}"
              f" {e['ratio_vs_cublas']:7.3f}x")


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Time Triton's autotuned FP32 matmul (IEEE, no TF32) and torch.mm (cuBLAS, TF32 off) "
                    "on the benchmark shapes, interleaved, and write a peers results file.")
    parser.add_argument("--sizes", default=DEFAULT_SIZES,
                        help="N or MxNxK, comma-separated, as gemm-tune --sizes (C = A(MxK) B(KxN), row-major); "
                             "default: the 11 benchmark shapes")
    parser.add_argument("--output", help="results file (default: results/peers-triton-<gpu slug>.json)")
    parser.add_argument("--rounds", type=int, default=50,
                        help=f"interleaved samples of each implementation (at least {MIN_ROUNDS}; default 50)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the uniform [-1, 1] inputs (default 1)")
    parser.add_argument("--device", type=int, default=0, help="CUDA device index (default 0)")
    parser.add_argument("--no-graphs", action="store_true",
                        help="launch each batch from Python instead of replaying a CUDA graph")
    args = parser.parse_args(argv)
    try:
        shapes = parse_sizes(args.sizes)
    except ValueError as e:
        parser.error(str(e))
    if args.rounds < MIN_ROUNDS:
        parser.error(f"--rounds must be at least {MIN_ROUNDS}")

    try:
        import torch
    except ImportError:
        print("triton_sgemm: PyTorch is not installed (python3 -c 'import torch' fails)", file=sys.stderr)
        return 2
    if not torch.cuda.is_available() or args.device >= torch.cuda.device_count():
        print(f"triton_sgemm: no CUDA device {args.device} visible to PyTorch", file=sys.stderr)
        return 2
    try:
        import triton
        import triton.language
    except ImportError:
        print("triton_sgemm: Triton is not installed (python3 -c 'import triton' fails)", file=sys.stderr)
        return 2
    global tl
    tl = triton.language
    torch.cuda.set_device(args.device)
    # Pure FP32: torch.mm is then cublasSgemm-class work, the same baseline gemm-tune bench uses.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")

    device = device_record(torch, args.device)
    output = args.output or os.path.join("results", f"peers-triton-{device['slug']}.json")
    triton_kernel, sgemm = build_sgemm(triton)

    header = {"schema": SCHEMA, "kind": "measured", "gpu": device["name"], "device": device,
              "triton_version": triton.__version__, "torch_version": torch.__version__,
              "cuda_runtime_version": torch.version.cuda, "cublas_via": "torch.mm",
              "error_constant": ERROR_CONSTANT, "seed": args.seed, "updated": utc_timestamp()}
    entries = []
    for m, n, k in shapes:
        label = shape_label(m, n, k)
        print(f"{label}: autotuning and timing ...", file=sys.stderr, flush=True)
        try:
            entry = measure_shape(torch, triton_kernel, sgemm, m, n, k, args, device)
        except Exception as e:  # one shape's failure is a record, not the end of the run
            entry = {"m": m, "n": n, "k": k, "dtype": "f32", "layout": "nn", "implementation": "triton",
                     "status": "failed", "detail": f"{type(e).__name__}: {e}".splitlines()[0],
                     "date": utc_timestamp()}
        finally:
            torch.cuda.empty_cache()
        entries.append(entry)
        # Written after every shape, so an interrupted run keeps what it measured.
        header["updated"] = utc_timestamp()
        write_results(output, header, [entry])
    print_table(f"{device['name']}, {header['updated']}: Triton {triton.__version__} vs torch.mm "
                f"(torch {torch.__version__}, cuBLAS, TF32 off)", entries)
    passed = [e for e in entries if e["status"] == "passed"]
    if passed:
        geomean = math.exp(sum(math.log(e["ratio_vs_cublas"]) for e in passed) / len(passed))
        print(f"geometric mean ratio vs torch.mm: {geomean:.3f} over {len(passed)} shapes")
    print(f"written: {output}")
    return 0 if len(passed) == len(entries) else 1


if __name__ == "__main__":
    sys.exit(main())
