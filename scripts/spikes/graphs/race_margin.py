#!/usr/bin/env python3
"""Would a margin over cuBLAS in the race help? For every row of the committed held-out and decode
benches that ran a tuned kernel or a cuBLASLt algorithm of its own GPU's exact-shape entry, the race's
ratio (results/<gpu>.json) against the bench's ratio through the library. A margin T would give the
rows whose race ratio is under T to cuBLAS (about 1.0 through the library): printed per T, the rows
switched and the sum of log(1 / bench ratio) over them (positive: the margin gains); then, per bench
file, each contender's race time over its bench time (ours: the kernel or cuBLASLt algorithm that ran).
    python3 scripts/spikes/graphs/race_margin.py [results]"""
import glob
import json
import math
import sys

results = sys.argv[1] if len(sys.argv) > 1 else "results"
GPUS = ("nvidia-h100-80gb-hbm3", "nvidia-h200")


def key(gpu, e, c16):
    return (gpu, e["m"], e["n"], e["k"], e.get("layout", "nn"), e.get("precision", "fp32"), c16, e.get("batch", 1))


tuned = {}
for gpu in GPUS:
    for e in json.load(open(f"{results}/{gpu}.json"))["entries"]:
        tuned[key(gpu, e, e.get("c", "") != "")] = e
rows = []
times = []  # (bench file, our race time over the bench's, cuBLAS's race time over the bench's)
for path in sorted(glob.glob(f"{results}/decode-*.json") + glob.glob(f"{results}/heldout-*.json")):
    gpu = next((g for g in GPUS if g in path), None)
    for e in json.load(open(path))["entries"]:
        if gpu is None or e.get("source") != "exact_shape" or not e.get("measured", e.get("correct")):
            continue
        t = tuned.get(key(gpu, e, e.get("c", "fp32") not in ("fp32", "")))
        if not t or t["winner"] == "cublas":
            continue
        race = t["ratio_vs_cublas"] if t["winner"] == "kernel" else t["cublas"]["median_ms"] / t["cublaslt"]["median_ms"]
        rows.append((path.split("/")[-1], key(gpu, e, 0)[1:6], t["winner"], race, e["ratio_vs_cublas"]))
        ours = t["best"]["median_ms"] if t["winner"] == "kernel" else t["cublaslt"]["median_ms"]
        times.append((path.split("/")[-1], ours / e["median_ms"], t["cublas"]["median_ms"] / e["cublas_median_ms"]))
print(f"{len(rows)} rows ran a kernel or a cuBLASLt algorithm of their own exact-shape entry")
for margin in (1.01, 1.02, 1.03, 1.05):
    switched = [r for r in rows if r[3] < margin]
    gain = sum(-math.log(r[4]) for r in switched)
    print(f"margin {margin}: {len(switched)} rows to cuBLAS, sum of log gains {gain:+.3f}, "
          f"their bench ratios {min((r[4] for r in switched), default=0):.3f} to {max((r[4] for r in switched), default=0):.3f}")
under = [r for r in rows if r[4] < 0.99]
print(f"{len(under)} rows under 0.99 in the bench; their race ratios:")
for r in sorted(under, key=lambda r: r[4]):
    print(f"  {r[0]:45s} {r[1]} {r[2]:8s} race {r[3]:.3f} bench {r[4]:.3f}")

# Where the two disagree: the same contender's time in the race over its time in the bench.
print("race time over bench time (median over the rows, then lowest and highest), per bench file:")
for name in sorted({t[0] for t in times}):
    ours = sorted(t[1] for t in times if t[0] == name)
    theirs = sorted(t[2] for t in times if t[0] == name)
    print(f"  {name:45s} {len(ours):3d} rows: ours {ours[len(ours) // 2]:.3f} ({ours[0]:.3f}-{ours[-1]:.3f}), "
          f"cuBLAS {theirs[len(theirs) // 2]:.3f} ({theirs[0]:.3f}-{theirs[-1]:.3f})")
