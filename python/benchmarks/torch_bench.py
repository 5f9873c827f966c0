"""Issue #46's targets, measured (a benchmark program, not a timed test):
  1. host time per call of gemmtune.mm against torch.mm at 64^3 (and of torch.ops.gemmtune.mm, the
     registered op, which autograd and torch.compile use);
  2. a 2-layer FP32 MLP with gemmtune.nn.Linear against torch.nn.Linear, end to end (inference),
     and its error against a float64 reference under the K-scaled bound: with the shipped results,
     then (--tune-seconds S > 0) after the record -> tune -> reload loop on the MLP's own problems
     (S seconds per problem, into a temporary results directory). "gemmtune_library" is the same
     model with every product in the library (no torch linear for the layers it gives cuBLAS);
  3. each layer alone, GPU time only (replays of a CUDA graph of several calls): torch's linear
     (cuBLASLt, bias in the epilogue), gemmtune's Linear both ways, and the products without bias;
  4. the precisions: bf16 and fp16 tensors (the library's C in the operands' dtype, as torch.mm
     returns it, against out_dtype=torch.float32 and torch.mm in that dtype), and float32 as
     tf32 and 3xtf32 against torch.mm in TF32 and FP32: host time at 64^3, GPU time in CUDA graphs.
Host time: a burst of calls small enough never to fill the launch queue is timed on the host before
synchronising, rounds interleaved between the contenders, median of the rounds. Prints JSON.
Usage: python3 torch_bench.py [--rounds 30] [--tune-seconds 0] [--json FILE] [--precisions-only]
"""

import argparse
import datetime
import json
import statistics
import tempfile
import time
import timeit

import torch

import gemmtune


def host_us_per_call(fn, calls=200):
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


def gpu_ms(fn, iterations=50):
    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    begin.record()
    for _ in range(iterations):
        fn()
    end.record()
    torch.cuda.synchronize()
    return begin.elapsed_time(end) / iterations


def interleaved(contenders, measure, rounds):
    samples = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, fn in contenders.items():
            samples[name].append(measure(fn))
    return {name: statistics.median(v) for name, v in samples.items()}


SUM_UNIT = {torch.float32: 2.0**-24, torch.bfloat16: 2.0**-23, torch.float16: 2.0**-23}  # as tests/python
OUT_UNIT = {torch.float32: 0.0, torch.bfloat16: 2.0**-8, torch.float16: 2.0**-11}


def k_scaled_error(out, x, model_layers):
    """max |out - ref| / bound, ref the model in float64 from the same input and weights: <= 1 passes.
    The bound sums each Linear's K-scaled one, (2K + 4) u + r (u: 2^-24 for FP32 sums, 2^-23 for the
    tensor cores' 16-bit products; r: one rounding of the layer's output to a 16-bit dtype, 0 for
    float32), times the |.|-products |x| |W1|^T ... carried through the layers (ReLU keeps them)."""
    h = x.double()
    scale = x.double().abs()
    coefficient = 0.0
    for layer in model_layers:
        if isinstance(layer, torch.nn.Linear):
            w, b = layer.weight.double(), layer.bias.double()
            h, scale = h @ w.t() + b, scale @ w.abs().t() + b.abs()
            coefficient += (2 * w.shape[1] + 4) * SUM_UNIT[out.dtype] + OUT_UNIT[out.dtype]
        else:
            h, scale = layer(h), layer(scale)
    bound = coefficient * scale + 1e-30
    return float(((out.double() - h).abs() / bound).max())


def graphed(model, x):
    """model(x) captured in a CUDA graph (after a warm-up on the capture stream): (replay, output,
    the capture mode that worked, errors of those that did not); replay None if none did."""
    errors = {}
    for mode in ("global", "relaxed"):
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            model(x)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(graph, stream=stream, capture_error_mode=mode):
                out = model(x)
            return graph.replay, out, mode, errors
        except Exception as e:  # noqa: BLE001 - recorded in the report
            errors[mode] = str(e).splitlines()[0]
            torch.cuda.synchronize()
    return None, None, None, errors


def library_only(fn):
    """fn with every product of gemmtune's Linear run by the library (see _torch_calls)."""
    from gemmtune import _torch_calls

    def call():
        _torch_calls.torch_linear_for_cublas = False
        try:
            return fn()
        finally:
            _torch_calls.torch_linear_for_cublas = True
    return call


CALLS_PER_GRAPH = 10


def captured(fn):
    """A replay of a CUDA graph holding CALLS_PER_GRAPH calls of fn (warmed up on the capture stream)."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        for _ in range(CALLS_PER_GRAPH):
            fn()
    return graph.replay


def measure_layers(models, rounds):
    """Each Linear of each MLP alone: microseconds of GPU time per call, and what runs it."""
    layers = {}
    for label, (theirs, ours, x) in models.items():
        with torch.no_grad():
            inputs = (x, torch.relu(theirs[0](x)))
            for index, (t, g, h) in enumerate(zip((theirs[0], theirs[2]), (ours[0], ours[2]), inputs)):
                w = t.weight
                rows, cols = h.shape[0], w.shape[0]
                fns = {"torch_linear": lambda t=t, h=h: t(h), "gemmtune_linear": lambda g=g, h=h: g(h),
                       "gemmtune_linear_library": library_only(lambda g=g, h=h: g(h)),
                       # torch's non-fused addmm: C preset to the bias, then cublasSgemm with beta 1
                       "torch_addmm_expanded_bias": lambda t=t, h=h, r=rows, c=cols: torch.addmm(
                           t.bias.expand(r, c), h, t.weight.t()),
                       "torch_mm_no_bias": lambda w=w, h=h: torch.mm(h, w.t()),
                       "gemmtune_mm_no_bias": lambda w=w, h=h: gemmtune.mm(h, w.t())}
                replays = {}
                for name, fn in fns.items():
                    try:
                        replays[name] = captured(fn)
                    except Exception as e:  # noqa: BLE001 - recorded in the report
                        replays[name] = None
                        print(f"{label} layer {index} {name}: capture failed: {e}", flush=True)
                times = interleaved({n: r for n, r in replays.items() if r},
                                    lambda r: gpu_ms(r, iterations=5) * 1000 / CALLS_PER_GRAPH, rounds)
                host = interleaved({name: fns[name] for name in ("torch_linear", "gemmtune_linear",
                                                                  "torch_addmm_expanded_bias")},
                                   lambda fn: host_us_per_call(fn, calls=20), rounds)
                m, k = h.shape
                layers[f"{label} layer {index}: {m}x{w.shape[0]}x{k}:nt"] = {
                    "us": times, "host_us": host, "config": gemmtune.explain(h, w.t()).config,
                    "torch_linear_over_gemmtune_linear": times["torch_linear"] / times["gemmtune_linear"]
                    if "gemmtune_linear" in times else None}
    return layers


def measure_mlps(models, rounds):
    """Eager (host time counts: at 64 rows the host is the bottleneck) and in CUDA graphs (the GPU's
    time alone), interleaved."""
    mlps = {}
    for label, (theirs, ours, x) in models.items():
        with torch.no_grad():
            out_ours, out_theirs = ours(x), theirs(x)
            replay_theirs, _, _, _ = graphed(theirs, x)
            replay_ours, graph_out_ours, mode, capture_errors = graphed(ours, x)
            contenders = {"torch": lambda: theirs(x), "gemmtune": lambda: ours(x),
                          "gemmtune_library": library_only(lambda: ours(x)), "torch_graph": replay_theirs}
            if replay_ours:
                contenders["gemmtune_graph"] = replay_ours
            times = interleaved(contenders, gpu_ms, rounds)
            host = interleaved({"torch": lambda: theirs(x), "gemmtune": lambda: ours(x)},
                               lambda fn: host_us_per_call(fn, calls=20), rounds)
            layers = [theirs[0], theirs[1], theirs[2]]
            mlps[label] = {
                "ms_torch": times["torch"], "ms_gemmtune": times["gemmtune"],
                "speedup": times["torch"] / times["gemmtune"],
                "ms_gemmtune_library": times["gemmtune_library"],
                "speedup_library": times["torch"] / times["gemmtune_library"],
                "host_us_per_forward": host,
                "graph_ms_torch": times["torch_graph"], "graph_ms_gemmtune": times.get("gemmtune_graph"),
                "graph_speedup": times["torch_graph"] / times["gemmtune_graph"] if replay_ours else None,
                "graph_capture_mode": mode, "graph_capture_errors": capture_errors,
                "error_over_bound_gemmtune": k_scaled_error(out_ours, x, layers),
                "error_over_bound_gemmtune_graph": k_scaled_error(graph_out_ours, x, layers) if replay_ours else None,
                "error_over_bound_torch": k_scaled_error(out_theirs, x, layers),
                "layers": [gemmtune.explain(x, ours[0].weight.t()).config,
                           gemmtune.explain(torch.relu(ours[0](x)), ours[2].weight.t()).config],
            }
    return mlps


def measure_precisions(rounds):
    """Section 4: {shape: {contender: us}} of GPU time, host time at 64^3, and what runs each."""
    report = {"gpu_us": {}, "host_us_64cube": {}, "config": {}}
    for dtype, name in ((torch.bfloat16, "bf16"), (torch.float16, "fp16")):
        a, b = torch.randn(64, 64, device="cuda").to(dtype), torch.randn(64, 64, device="cuda").to(dtype)
        fns = {f"torch.mm {name}": lambda a=a, b=b: torch.mm(a, b),
               f"gemmtune.mm {name}": lambda a=a, b=b: gemmtune.mm(a, b),
               f"gemmtune.mm {name} out fp32": lambda a=a, b=b: gemmtune.mm(a, b, out_dtype=torch.float32)}
        for fn in fns.values():
            fn()
        with torch.no_grad():
            report["host_us_64cube"].update(interleaved(fns, host_us_per_call, rounds))
            # The same with torch's reduced-precision reductions off: gemmtune's torch call then
            # switches nothing (see _torch_calls._torch_product).
            with reduced_precision_reductions(False):
                report["host_us_64cube"].update({f"{label}, reduced-precision reduction off": us for label, us in
                                                 interleaved(fns, host_us_per_call, rounds).items()})
    for m, n, k in ((64, 64, 64), (1024, 1024, 1024), (4096, 4096, 4096), (64, 4096, 4096), (4096, 4096, 64)):
        shape = f"{m}x{n}x{k}"
        fns, configs = {}, {}
        a32, b32 = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda")
        for dtype, name in ((torch.bfloat16, "bf16"), (torch.float16, "fp16")):
            a, b = a32.to(dtype), b32.to(dtype)
            c32 = torch.empty(m, n, device="cuda")
            fns[f"torch.mm {name}"] = lambda a=a, b=b: torch.mm(a, b)
            fns[f"gemmtune.mm {name}"] = lambda a=a, b=b: gemmtune.mm(a, b)
            fns[f"gemmtune.mm {name} out fp32"] = lambda a=a, b=b: gemmtune.mm(a, b, out_dtype=torch.float32)
            fns[f"cast fp32->{name} alone"] = lambda c=c32, d=dtype: c.to(d)
            configs[name] = gemmtune.explain(a, b).config
        fns["torch.mm fp32"] = lambda: torch.mm(a32, b32)
        fns["gemmtune.mm fp32"] = lambda: gemmtune.mm(a32, b32)
        for precision in ("tf32", "3xtf32"):
            fns[f"gemmtune.mm {precision}"] = lambda p=precision: gemmtune.mm(a32, b32, precision=p)
            configs[precision] = gemmtune.explain(a32, b32, precision=precision).config
        configs["fp32"] = gemmtune.explain(a32, b32).config
        replays = {}
        for label, fn in fns.items():
            try:
                replays[label] = captured(fn)
            except Exception as e:  # noqa: BLE001 - recorded in the report
                print(f"{shape} {label}: capture failed: {e}", flush=True)
        torch.backends.cuda.matmul.allow_tf32 = True  # torch.mm in TF32, captured under the setting
        try:
            replays["torch.mm tf32"] = captured(lambda: torch.mm(a32, b32))
        finally:
            torch.backends.cuda.matmul.allow_tf32 = False
        iterations = 2 if m * n * k >= 4096**3 else 5
        report["gpu_us"][shape] = interleaved(
            replays, lambda r: gpu_ms(r, iterations=iterations) * 1000 / CALLS_PER_GRAPH, rounds)
        report["config"][shape] = configs
        print(shape, {k: round(v, 1) for k, v in report["gpu_us"][shape].items()}, configs, flush=True)
    return report


class reduced_precision_reductions:  # noqa: N801 - a context manager
    """torch's allow_{bf16,fp16}_reduced_precision_reduction set to allowed inside the block."""

    def __init__(self, allowed):
        self.allowed = allowed

    def __enter__(self):
        matmul = torch.backends.cuda.matmul
        self.saved = (matmul.allow_bf16_reduced_precision_reduction, matmul.allow_fp16_reduced_precision_reduction)
        matmul.allow_bf16_reduced_precision_reduction = self.allowed
        matmul.allow_fp16_reduced_precision_reduction = self.allowed

    def __exit__(self, *exc):
        matmul = torch.backends.cuda.matmul
        matmul.allow_bf16_reduced_precision_reduction, matmul.allow_fp16_reduced_precision_reduction = self.saved


REDUCTION_SHAPES = ((64, 64, 4096), (64, 64, 16384), (128, 128, 8192), (16, 1024, 16384), (64, 1024, 4096),
                    (64, 4096, 4096), (1024, 1024, 1024), (4096, 4096, 64), (512, 512, 32768))


def measure_reductions():
    """torch.mm of 16-bit operands with its reduced-precision reductions allowed (torch's default) and
    not, and gemmtune.mm: each result's error over the package's K-scaled bound (tests/python's
    precision_error: (2K + 4) 2^-23 |A||B| + the result's rounding), and whether torch's two agree
    bit for bit (where not, cuBLAS reduced split-K partial sums in the 16-bit type)."""
    report = {}
    for m, n, k in REDUCTION_SHAPES:
        g = torch.Generator(device="cuda").manual_seed(m + n + k)
        a32 = torch.randn(m, k, device="cuda", generator=g)
        b32 = torch.randn(k, n, device="cuda", generator=g)
        for dtype in (torch.bfloat16, torch.float16):
            a, b = a32.to(dtype), b32.to(dtype)
            ref = a.double() @ b.double()
            bound = (2 * k + 4) * 2.0**-23 * (a.double().abs() @ b.double().abs()) + OUT_UNIT[dtype] * ref.abs()
            errors = {}
            with reduced_precision_reductions(True):
                allowed = torch.mm(a, b)
                ours = gemmtune.mm(a, b)
            with reduced_precision_reductions(False):
                disallowed = torch.mm(a, b)
            for label, c in (("torch.mm, reduced-precision reduction allowed", allowed),
                             ("torch.mm, not allowed", disallowed), ("gemmtune.mm", ours)):
                errors[label] = float(((c.double() - ref).abs() / (bound + 1e-30)).max())
            errors["torch's two bit-equal"] = bool(torch.equal(allowed, disallowed))
            errors["gemmtune.mm bit-equal to torch's, not allowed"] = bool(torch.equal(ours, disallowed))
            errors["runs"] = gemmtune.explain(a, b).config
            report[f"{m}x{n}x{k} {str(dtype)[6:]}"] = errors
            print("reductions", m, n, k, dtype, errors, flush=True)
    return report


def measure_linear_k(rounds):
    """GPU time of torch's linear (cuBLASLt, bias in the epilogue) against its addmm over the bias
    expanded to C's shape (cuBLAS, which may split K) at 64 rows and 1024 outputs, by K: where
    gemmtune.nn.Linear's route to torch switches (_torch_calls.SHORT_K)."""
    report = {}
    for dtype in (torch.float32, torch.bfloat16):
        for k in (64, 128, 256, 512, 1024, 2048):
            x = torch.randn(64, k, device="cuda").to(dtype)
            w = torch.randn(1024, k, device="cuda").to(dtype)
            bias = torch.randn(1024, device="cuda").to(dtype)
            replays = {"linear": captured(lambda x=x, w=w, bias=bias: torch.nn.functional.linear(x, w, bias)),
                       "addmm_expanded_bias": captured(lambda x=x, w=w, bias=bias: torch.addmm(
                           bias.expand(64, 1024), x, w.t()))}
            report[f"64x1024x{k} {str(dtype)[6:]}"] = interleaved(
                replays, lambda r: gpu_ms(r, iterations=5) * 1000 / CALLS_PER_GRAPH, rounds)
    print("linear by K", {k: {n: round(v, 1) for n, v in d.items()} for k, d in report.items()}, flush=True)
    return report


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--tune-seconds", type=float, default=0)
    parser.add_argument("--json", help="also write the report here (the tuner prints its progress on stdout)")
    parser.add_argument("--precisions-only", action="store_true", help="sections 1 and 4 only")
    opts = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    # A schema of its own: a results directory holding this file skips it (results_catalog.cpp).
    report = {"schema": "gemmtune.python-bench/1", "gpu": torch.cuda.get_device_name(), "utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
              "torch": torch.__version__, "gemmtune": gemmtune.library_version()}

    a, b = torch.randn(64, 64, device="cuda"), torch.randn(64, 64, device="cuda")
    for fn in (lambda: torch.mm(a, b), lambda: gemmtune.mm(a, b), lambda: torch.ops.gemmtune.mm(a, b)):
        fn()
    with torch.no_grad():
        host = interleaved({"torch.mm": lambda: torch.mm(a, b), "gemmtune.mm": lambda: gemmtune.mm(a, b),
                            "torch.ops.gemmtune.mm": lambda: torch.ops.gemmtune.mm(a, b)},
                           host_us_per_call, opts.rounds)
    report["host_us_per_call_64cube"] = host
    report["gemmtune_mm_over_torch_mm_us"] = host["gemmtune.mm"] - host["torch.mm"]
    # Where gemmtune.mm's host time goes (no GPU work in any of these).
    from gemmtune import _library, _torch_calls, plan_mm
    problem = _library.sgemm_problem(plan_mm("mm", (64, 64), (64, 1), (64, 64), (64, 1)), 1.0, 0.0)
    run = _library.lib().gemmtune_run_gemm_problem
    parts = {
        "python_dispatch_and_plan": lambda: (gemmtune._through_op(a, b), _torch_calls._check_pair("mm", a, b),
                                             _torch_calls._plan(plan_mm, "mm", a, b)),
        "new_empty": lambda: a.new_empty((64, 64)),
        "ctypes_call_refused": lambda: run(None, 0, problem, 16, 16, 16, None),
        "raw_stream": lambda: _torch_calls._raw_stream(0),
    }
    report["host_us_parts"] = {name: timeit.timeit(fn, number=20000) / 20000 * 1e6 for name, fn in parts.items()}
    # A Linear with bias at 64 rows and 64 features: host time of the whole layer call.
    torch.manual_seed(0)
    small_t = torch.nn.Linear(64, 64).cuda()
    small_g = gemmtune.nn.Linear.from_linear(small_t)
    with torch.no_grad():
        report["host_us_per_call_linear_64"] = interleaved(
            {"torch.nn.Linear": lambda: small_t(a), "gemmtune.nn.Linear": lambda: small_g(a),
             "gemmtune.nn.Linear_library": library_only(lambda: small_g(a))}, host_us_per_call, opts.rounds)
        report["explain_linear_64"] = gemmtune.explain(a, small_t.weight.t()).config
        w64, b64 = small_t.weight, small_t.bias
        identity = torch.nn.Identity()
        report["host_us_linear_64_pieces"] = interleaved({
            "torch.nn.functional.linear": lambda: torch.nn.functional.linear(a, w64, b64),
            "torch.addmm(bias.expand, x, w.t())": lambda: torch.addmm(b64.expand(64, 64), a, w64.t()),
            "bias.repeat(64, 1)": lambda: b64.repeat(64, 1),
            "new_empty+copy_(bias)": lambda: a.new_empty((64, 64)).copy_(b64),
            "gemmtune.mm(x, w.t())": lambda: gemmtune.mm(a, w64.t()),
            "module call, no work": lambda: identity(a)}, host_us_per_call, opts.rounds)
        small_t16 = torch.nn.Linear(64, 64).cuda().bfloat16()
        small_g16 = gemmtune.nn.Linear.from_linear(small_t16)
        a16 = a.bfloat16()
        report["host_us_per_call_linear_64_bf16"] = interleaved(
            {"torch.nn.Linear": lambda: small_t16(a16), "gemmtune.nn.Linear": lambda: small_g16(a16)},
            host_us_per_call, opts.rounds)
    report["explain_64cube"] = gemmtune.explain(a, b)._asdict()
    report["precisions"] = measure_precisions(max(opts.rounds // 2, 3))
    report["reductions"] = measure_reductions()
    report["linear_by_k"] = measure_linear_k(max(opts.rounds // 3, 3))
    if opts.precisions_only:
        print(json.dumps(report, indent=1))
        if opts.json:
            with open(opts.json, "w") as f:
                f.write(json.dumps(report, indent=1) + "\n")
        return

    models = {}
    for dtype in (torch.float32, torch.bfloat16):
        for rows, width, hidden in ((64, 1024, 4096), (512, 1024, 4096), (4096, 1024, 4096)):
            torch.manual_seed(0)
            theirs = torch.nn.Sequential(torch.nn.Linear(width, hidden), torch.nn.ReLU(),
                                         torch.nn.Linear(hidden, width)).cuda().to(dtype)
            ours = gemmtune.nn.replace_linear(torch.nn.Sequential(
                torch.nn.Linear(width, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, width)).cuda().to(dtype))
            ours.load_state_dict(theirs.state_dict())
            label = f"{rows}x{width}->{hidden}->{width}" + ("" if dtype is torch.float32 else " bf16")
            models[label] = (theirs, ours, torch.randn(rows, width, device="cuda").to(dtype))
    def save():  # after each section, so a run cut short still leaves what it measured
        if opts.json:
            with open(opts.json, "w") as f:
                f.write(json.dumps(report, indent=1) + "\n")

    save()
    report["mlp_inference"] = measure_mlps(models, opts.rounds)
    save()
    report["layers"] = measure_layers(models, max(opts.rounds // 3, 5))
    save()
    if opts.tune_seconds > 0:
        with tempfile.TemporaryDirectory() as work:
            record = f"{work}/calls.jsonl"
            with torch.no_grad(), gemmtune.record(record):
                for theirs, ours, x in models.values():
                    ours(x)
            start = time.perf_counter()
            gemmtune.tune(sizes_from=record, results_dir=f"{work}/results", time_budget=opts.tune_seconds)
            report["tune_seconds_total"] = time.perf_counter() - start
            report["mlp_inference_after_tuning"] = measure_mlps(models, opts.rounds)
            save()
            report["layers_after_tuning"] = measure_layers(models, max(opts.rounds // 3, 5))
            gemmtune.reload()
    print(json.dumps(report, indent=1))
    save()


if __name__ == "__main__":
    main()
