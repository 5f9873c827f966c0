"""The same candidates raced by two tuners (session 45's A/B of the wgmma epilogue): each candidate's
median from both tuning logs side by side, then the best of each per shape (a shape's key holds every
precision raced at it).
    python3 compare_ab.py OLD_RESULTS_DIR NEW_RESULTS_DIR"""
import glob
import json
import sys


def medians(results_dir):
    out = {}
    for path in glob.glob(f"{results_dir}/logs/*.jsonl"):
        for line in open(path):
            if line.strip():
                e = json.loads(line)
                if e.get("type") == "evaluation" and e.get("status") == "ok":
                    out[(f"{e['m']}x{e['n']}x{e['k']}", e["name"])] = e["median_ms"] * 1e3
    return out


old, new = medians(sys.argv[1]), medians(sys.argv[2])
print(f"{'shape':16} {'candidate':44} {'old us':>9} {'new us':>9} {'old/new':>8}")
for key in sorted(set(old) & set(new)):
    print(f"{key[0]:16} {key[1]:44} {old[key]:9.2f} {new[key]:9.2f} {old[key] / new[key]:8.3f}")
for shape in sorted({k[0] for k in old} & {k[0] for k in new}):
    o = min(v for k, v in old.items() if k[0] == shape)
    n = min(v for k, v in new.items() if k[0] == shape)
    print(f"best at {shape}: old {o:.2f} us, new {n:.2f} us, {o / n:.3f}x")
