"""Session 48 (#46): what the bias costs sgemm's atomic split-K, and whether adding it in the first
slice's pass over the tile cost the calls without one anything. The layers of the fp32 MLP at 64
rows, each pinned to its tuned config (pinned-nvidia-h200.json, through GEMMTUNE_RESULTS), timed in
CUDA graphs of 50 calls (GPU time only): x @ w.T without a bias (gemmtune.mm) and with one
(gemmtune.nn.functional.linear), and torch's peers. Run once per library (GEMMTUNE_LIBRARY): the
library before this change added the bias with a kernel over C before the GEMM."""
import os
import sys

import torch

import gemmtune
import gemmtune.nn

CALLS, REPLAYS, ROUNDS = 50, 20, 5


def graph_us(fn):
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(CALLS):
            fn()
    best = float("inf")
    for _ in range(ROUNDS):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(REPLAYS):
            graph.replay()
        end.record()
        torch.cuda.synchronize()
        best = min(best, start.elapsed_time(end) * 1000 / (CALLS * REPLAYS))
    return best


def main():
    label = sys.argv[1]
    torch.manual_seed(0)
    for m, n, k in ((64, 1024, 4096), (64, 4096, 1024)):
        x = torch.randn(m, k, device="cuda")
        w = torch.randn(n, k, device="cuda")
        b = torch.randn(n, device="cuda")
        runs = gemmtune.explain(x, w.t())
        got = gemmtune.nn.functional.linear(x, w, b)
        ref = x.double() @ w.double().t() + b.double()
        bound = (k + 4) * 2.0**-24 * ((x.double().abs() @ w.double().abs().t()) + b.double().abs())
        worst = ((got.double() - ref).abs() / bound).max().item()
        times = {
            "gemmtune.mm": graph_us(lambda: gemmtune.mm(x, w.t())),
            "gemmtune linear+bias": graph_us(lambda: gemmtune.nn.functional.linear(x, w, b)),
            "torch.mm": graph_us(lambda: torch.mm(x, w.t())),
            "torch linear+bias": graph_us(lambda: torch.nn.functional.linear(x, w, b)),
        }
        print(f"{label} {m}x{n}x{k} {runs.config} err/bound {worst:.3g} "
              + " ".join(f"{name} {us:.2f}" for name, us in times.items()), flush=True)


if __name__ == "__main__":
    main()
