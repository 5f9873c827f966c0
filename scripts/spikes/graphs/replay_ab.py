"""GPU time per call in CUDA-graph replays: gemmtune.mm against torch.mm, for the library this
process loads ($GEMMTUNE_LIBRARY). Run once per library build (old, new, old, new) to compare the
graph workspaces. Prints one JSON line: {tag, shape: {what runs, torch us, gemmtune us}}."""
import json
import sys

import torch

import gemmtune

CALLS = 20
SHAPES = [  # m, n, k, layout, dtype
    (64, 64, 64, "nn", torch.float32),
    (8, 4096, 4096, "nt", torch.float32),
    (16, 11008, 4096, "nt", torch.float32),
    (1, 4096, 4096, "nt", torch.bfloat16),
    (8, 4096, 4096, "nt", torch.bfloat16),
    (4, 8192, 8192, "nn", torch.bfloat16),
    (64, 1024, 4096, "nt", torch.float32),
]


def operands(m, n, k, layout, dtype):
    g = torch.Generator(device="cuda").manual_seed(m * 7 + n)
    a = torch.randn(m, k, device="cuda", generator=g).to(dtype)
    b = torch.randn(n, k, device="cuda", generator=g).to(dtype).t() if layout[1] == "t" else \
        torch.randn(k, n, device="cuda", generator=g).to(dtype)
    return a, b


def replay_us(fn, rounds=7):
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        for _ in range(CALLS):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(rounds):
        start.record()
        for _ in range(10):
            graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000 / (10 * CALLS))
    return sorted(times)[len(times) // 2]


def main():
    out = {"tag": sys.argv[1] if len(sys.argv) > 1 else "", "gpu": torch.cuda.get_device_name()}
    for m, n, k, layout, dtype in SHAPES:
        a, b = operands(m, n, k, layout, dtype)
        label = f"{m}x{n}x{k}:{layout}:{str(dtype).split('.')[-1]}"
        try:
            ours, theirs = replay_us(lambda: gemmtune.mm(a, b)), replay_us(lambda: torch.mm(a, b))
            out[label] = {"runs": gemmtune.explain(a, b).config, "torch_us": round(theirs, 2),
                          "gemmtune_us": round(ours, 2), "torch_over_gemmtune": round(theirs / ours, 3)}
        except Exception as e:  # noqa: BLE001 - reported
            out[label] = {"error": str(e)[:200]}
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
