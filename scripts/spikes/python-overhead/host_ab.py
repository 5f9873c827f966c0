"""Host time of gemmtune's direct paths against torch's, on the GPU, for one checkout of the package
(whichever PYTHONPATH finds): gemmtune.mm and torch.mm at 64^3, gemmtune.nn.Linear and torch's at 64
rows and 64 features, and a 2-layer float32 MLP (1024 -> 4096 -> 1024, ReLU) at 64 rows, whose eager
forward the host decides. torch_bench.py's method: bursts timed on the host, rounds interleaved,
medians. Run it once per checkout, alternating, to compare two (host_ab.sh). Prints one JSON line.
Usage: python3 host_ab.py LABEL [--rounds 40]"""
import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.environ.get("TORCH_BENCH_DIR", "."))
from torch_bench import gpu_ms, host_us_per_call, interleaved  # noqa: E402

import gemmtune  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("label")
    parser.add_argument("--rounds", type=int, default=40)
    opts = parser.parse_args()
    torch.manual_seed(0)
    a, b = torch.randn(64, 64, device="cuda"), torch.randn(64, 64, device="cuda")
    small_t = torch.nn.Linear(64, 64).cuda()
    small_g = gemmtune.nn.Linear.from_linear(small_t)
    theirs = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).cuda()
    ours = gemmtune.nn.replace_linear(torch.nn.Sequential(*[m for m in theirs]))  # shares the parameters
    x = torch.randn(64, 1024, device="cuda")
    report = {"label": opts.label, "gpu": torch.cuda.get_device_name(), "file": gemmtune.__file__}
    with torch.no_grad():
        fns = {"torch.mm": lambda: torch.mm(a, b), "gemmtune.mm": lambda: gemmtune.mm(a, b),
               "torch.nn.Linear 64": lambda: small_t(a), "gemmtune.nn.Linear 64": lambda: small_g(a),
               "torch MLP 64": lambda: theirs(x), "gemmtune MLP 64": lambda: ours(x)}
        for fn in fns.values():
            fn()
        report["explain"] = {"mm": gemmtune.explain(a, b).config, "mlp": [
            gemmtune.explain(x, theirs[0].weight.t()).config,
            gemmtune.explain(torch.relu(theirs[0](x)), theirs[2].weight.t()).config]}
        host = interleaved({k: v for k, v in fns.items() if "MLP" not in k}, host_us_per_call, opts.rounds)
        host.update(interleaved({k: v for k, v in fns.items() if "MLP" in k},
                                lambda fn: host_us_per_call(fn, calls=20), opts.rounds))
        report["host_us"] = host
        report["eager_mlp_us"] = {k: v * 1000 for k, v in interleaved(
            {k: v for k, v in fns.items() if "MLP" in k}, gpu_ms, opts.rounds).items()}
    report["mm_over_torch_us"] = host["gemmtune.mm"] - host["torch.mm"]
    report["linear_over_torch_us"] = host["gemmtune.nn.Linear 64"] - host["torch.nn.Linear 64"]
    report["mlp_host_over_torch_us"] = host["gemmtune MLP 64"] - host["torch MLP 64"]
    report["mlp_eager_torch_over_ours"] = report["eager_mlp_us"]["torch MLP 64"] / report["eager_mlp_us"]["gemmtune MLP 64"]
    print(json.dumps(report))


if __name__ == "__main__":
    main()
