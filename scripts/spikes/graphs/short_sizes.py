"""The --sizes of a results file's problems whose recorded cuBLAS time is under a bound (default
25 us): those raced before the race timed graph replays, where cuBLAS's host path (10-15 us a call)
may have set its time. Usage: short_sizes.py RESULTS.json [MICROSECONDS]"""
import json
import sys

doc = json.load(open(sys.argv[1]))
bound_ms = (float(sys.argv[2]) if len(sys.argv) > 2 else 25.0) / 1000
sizes = []
for e in doc["entries"]:
    if e.get("cublas", {}).get("median_ms", 1.0) >= bound_ms:
        continue
    size = f"{e['m']}x{e['n']}x{e['k']}:{e.get('layout', 'nn')}:{e.get('precision', 'fp32')}"
    if e.get("c"):
        size += ":c16"
    if e.get("batch", 1) > 1:
        size += f":b{e['batch']}"
    sizes.append(size)
print(",".join(sizes))
