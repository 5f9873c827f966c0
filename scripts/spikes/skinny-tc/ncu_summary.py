"""Nsight Compute's --csv metrics, one line per kernel and grid size: each metric's median over those
launches. python3 ncu_summary.py FILE.csv"""
import csv
import statistics
import sys
from collections import defaultdict

rows = list(csv.reader(l for l in open(sys.argv[1], errors="replace") if l.startswith('"')))
if not rows:
    sys.exit("no metrics in " + sys.argv[1])
at = {name: i for i, name in enumerate(rows[0])}
launches = defaultdict(dict)  # launch id -> {"name": ..., metric: value}
for r in rows[1:]:
    if len(r) != len(rows[0]):
        continue
    launch = launches[r[at["ID"]]]
    launch["name"] = r[at["Kernel Name"]][:60]
    try:
        launch[r[at["Metric Name"]]] = float(r[at["Metric Value"]].replace(",", ""))
    except ValueError:
        pass
groups = defaultdict(list)
for launch in launches.values():
    groups[(launch["name"], launch.get("launch__grid_size", 0))].append(launch)
for (name, grid), group in sorted(groups.items(), key=lambda g: g[0][0]):
    metrics = sorted({m for l in group for m in l if m != "name"})
    parts = [f"{m.split('__', 1)[-1][:26]}={statistics.median(l[m] for l in group if m in l):.4g}" for m in metrics]
    print(f"{name:60} grid {grid:g} x{len(group)}: " + " ".join(parts))
