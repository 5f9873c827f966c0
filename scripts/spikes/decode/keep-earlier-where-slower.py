"""Session 32: a re-tune's results file with each entry whose winner ran below THRESHOLD x cuBLAS
through the library (a gemmtune-heldout decode JSON over that file) replaced by the entry the shipped
file held for the problem (the race and the library disagreed there: see docs/performance.md).
Usage: keep-earlier-where-slower.py RETUNED SHIPPED HELDOUT_JSON OUT [THRESHOLD]"""
import json
import sys

retuned, shipped, heldout, out = sys.argv[1:5]
threshold = float(sys.argv[5]) if len(sys.argv) > 5 else 0.97
key = lambda e: (e["m"], e["n"], e["k"], e.get("layout", "nn"), e.get("batch", 1), e.get("precision", "fp32"))
new = json.load(open(retuned))
old = {key(e): e for e in json.load(open(shipped))["entries"]}
slow = {}
for e in json.load(open(heldout))["entries"]:
    if e["implementation"] != "cublas" and e["ratio_vs_cublas"] < threshold:
        slow[(e["m"], e["n"], e["k"], e["layout"], e["batch"], e["precision"])] = (e["ran"], e["ratio_vs_cublas"])
entries = []
for e in new["entries"]:
    k = key(e)
    if k in slow and k in old:
        print(f"{k}: {slow[k][0]} at {slow[k][1]:.3f}x through the library: the shipped entry ({old[k]['winner']}) kept")
        e = old[k]
    entries.append(e)
new["entries"] = entries
json.dump(new, open(out, "w"), indent=1)
print(f"{len(slow)} below {threshold}; written {out}")
