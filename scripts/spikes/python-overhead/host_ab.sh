#!/usr/bin/env bash
# On the GPU machine, from the checkout's root with build-carry-python carried: host_ab.py for the
# package staged in build-carry-python/site (this checkout) and in build-carry-python/site-old (an
# older checkout's Python files beside the same library, made by stage-old.sh), alternating, REPEATS
# times each; one JSON line a run into $OUT/host_ab.jsonl.
set -uo pipefail
here=build-carry-python
export GEMMTUNE_CACHE_DIR=/tmp/gemmtune-cache TORCH_BENCH_DIR=$PWD/$here
for i in $(seq "${REPEATS:-3}"); do
  for v in site-old site; do
    PYTHONPATH=$PWD/$here/$v timeout 120 python3 scripts/spikes/python-overhead/host_ab.py "$v" --rounds "${ROUNDS:-40}" \
      >> "$OUT/host_ab.jsonl" 2> "$OUT/host_ab-$v.err" || echo "$v run $i failed: $(tail -1 "$OUT/host_ab-$v.err")"
  done
done
python3 - "$OUT/host_ab.jsonl" <<'PY'
import json, sys, statistics
runs = [json.loads(l) for l in open(sys.argv[1])]
for label in ("site-old", "site"):
    rs = [r for r in runs if r["label"] == label]
    if not rs:
        continue
    print(label, rs[0]["explain"])
    for k in ("mm_over_torch_us", "linear_over_torch_us", "mlp_host_over_torch_us", "mlp_eager_torch_over_ours"):
        v = [r[k] for r in rs]
        print(f"  {k:28s} median {statistics.median(v):7.3f}  runs {' '.join(f'{x:.3f}' for x in v)}")
    for k in rs[0]["host_us"]:
        print(f"  host {k:24s} " + " ".join(f"{r['host_us'][k]:.2f}" for r in rs))
PY
