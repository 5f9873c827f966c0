#!/usr/bin/env bash
# Session 43 (H200): the wgmma kernels let the stream's next grid launch once their last load is
# issued (a6b6077); bisected as what slowed the 3xtf32 split-K winner at 4096x64x4096 by 10% (38.3 ->
# 42.2 us). OLD (main) against .device-build (the early launch for unsplit grids only), exhaustive over
# a few tiles each with and without split-K, two interleaved rounds, each candidate's screening median
# from the tuning log; cuBLAS in the same race.
#   OLD=.device-build/old/gemm-tune-head ab-wgmma-splitk-run.sh
set -uo pipefail
: "${OLD:=.device-build/old/gemm-tune-head}"
T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
for round in 1 2; do
  for exe in "$OLD" .device-build/tuner/gemm-tune; do
    name=$(basename "$exe")
    for job in 3xtf32 tf32 bf16; do
      r=/tmp/ab-$name-$round-$job
      GEMMTUNE_CACHE_DIR=/tmp/gc-$name timeout 100 "$exe" --results-dir $r --gpu 0 \
        --space scripts/spikes/small-tc/splitk-$job.json --strategy exhaustive \
        --sizes 4096x64x4096:$job,4096x128x4096:$job --no-warm-start -j16 --top 3 > $OUT/ab-$name-$round-$job.log 2>&1
      echo "$name round $round $job rc $? at $((SECONDS - T0)) s"
      grep -A3 "^problem" $OUT/ab-$name-$round-$job.log | tail -2 | cut -c1-100
      python3 - $r/logs/*.jsonl <<'P'
import json, sys
for path in sys.argv[1:]:
    for line in filter(str.strip, open(path)):
        r = json.loads(line)
        if 'median_ms' in r:
            print(f"    {path.split('/')[-1][:24]:24s} {r.get('name', '?'):46s} {r['median_ms'] * 1e3:8.2f} us")
P
    done
  done
done
date -u +%FT%TZ
