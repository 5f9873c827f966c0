"""Every candidate a race measured, fastest first: python3 top.py RESULTS_DIR [COUNT]."""
import glob
import json
import sys

rows = []
for path in glob.glob(f"{sys.argv[1]}/logs/*.jsonl"):
    for line in open(path):
        e = json.loads(line) if line.strip() else {}
        if e.get("type") == "evaluation" and e.get("status") == "ok":
            rows.append((e["median_ms"] * 1e3, e["name"]))
for us, name in sorted(rows)[: int(sys.argv[2]) if len(sys.argv) > 2 else 15]:
    print(f"  {name:48} {us:8.2f} us")
print(f"  ({len(rows)} measured)")
