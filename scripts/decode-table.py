#!/usr/bin/env python3
"""The decode benchmark's per-shape table (docs/performance.md, the README) from its JSON output
(gemmtune-heldout --only decode -o FILE): ratio against cuBLAS in the same precision and, in
brackets, the share of the device-to-device copy bandwidth measured in the same run.

    scripts/decode-table.py results/decode-bf16-nvidia-h100-80gb-hbm3.json
"""
import json
import math
import sys


def timed(entry) -> bool:
    """Correct and timed on both sides ("measured"; files before 2026-11-27 10:00 lack it)."""
    return entry.get("measured", entry["correct"])


def main() -> int:
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} DECODE_JSON", file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1]) as f:
            doc = json.load(f)
        entries = [e for e in doc["entries"] if e["set"] == "decode"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"{sys.argv[1]}: not a decode benchmark file ({e})", file=sys.stderr)
        return 2
    rows = sorted({m for m in (e["m"] for e in entries)})
    print("| layout: n, k | " + " | ".join(f"m = {m}" if i == 0 else str(m) for i, m in enumerate(rows)) + " |")
    print("|---" * (len(rows) + 1) + "|")
    for layout in ("nn", "nt"):
        for n, k in dict.fromkeys((e["n"], e["k"]) for e in entries):
            cells = []
            for m in rows:
                e = next((e for e in entries if (e["layout"], e["n"], e["k"], e["m"]) == (layout, n, k, m)), None)
                cells.append("-" if e is None or not timed(e) else
                             f"{e['ratio_vs_cublas']:.2f} ({100 * e['fraction_of_copy']:.0f}%)")
            print(f"| {layout}: {n}, {k} | " + " | ".join(cells) + " |")
    ok = [e for e in entries if timed(e)]
    geomean = math.exp(sum(math.log(e["ratio_vs_cublas"]) for e in ok) / len(ok)) if ok else 0
    below = [e for e in ok if e["fraction_of_copy"] < 0.8]
    print(f"\n{doc.get('device')}, {doc.get('date')}, {doc.get('precision')}: {len(ok)} shapes, geometric mean "
          f"{geomean:.3f}, lowest {min((e['ratio_vs_cublas'] for e in ok), default=0):.3f}; "
          f"{len(ok) - len(below)} at >= 80% of the copy bandwidth, lowest "
          f"{100 * min((e['fraction_of_copy'] for e in ok), default=0):.0f}%; below 1.0: "
          f"{sum(e['ratio_vs_cublas'] < 1.0 for e in ok)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
