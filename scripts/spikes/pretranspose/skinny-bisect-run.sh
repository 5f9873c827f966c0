#!/usr/bin/env bash
# Session 43: the H200 3xtf32 winner at 4096x64x4096 (wgmma 128x64, split-K 4) was tuned at 9242fb6 at
# 55.9 TFLOP/s and measures 9.5% slower at main. Times its binary (and split-K 8) with gemm-tune built
# at 9242fb6, at a6b6077 (the commit that moved the prologue before griddepcontrol.wait) and at main,
# in turn, ROUNDS times, each exhaustive over the same two candidates from a cold cache; then what the
# library delivers in 3xtf32 over the tuned and held-out sets with every shipped results file.
#   OLD=.device-build/old ROUNDS=2 skinny-bisect-run.sh
set -u; B=.device-build; : "${OLD:=$B/old}"; date -u +%FT%TZ
space=scripts/spikes/pretranspose/skinny-3xtf32-bisect-space.json
for round in $(seq "${ROUNDS:-2}"); do
  for exe in "$OLD/gemm-tune-9242fb6" "$OLD/gemm-tune-a6b6077" "$B/tuner/gemm-tune"; do
    r=$(mktemp -d)
    GEMMTUNE_CACHE_DIR=$(mktemp -d) "$exe" --gpu 0 --sizes 4096x64x4096:3xtf32 --strategy exhaustive --space $space \
      -j16 --results-dir $r --no-warm-start > $OUT/bisect-$(basename $exe)-$round.log 2>&1
    echo "round $round $(basename $exe) rc $?: $(grep '^4096x64x4096' $OUT/bisect-$(basename $exe)-$round.log | cut -c1-110)"
    python3 - $r/logs/*.jsonl <<'P'
import json, sys
for line in filter(str.strip, open(sys.argv[1])):
    r = json.loads(line)
    if 'median_ms' in r: print(f"    {r.get('name', '?'):44s} {r['median_ms'] * 1e3:8.2f} us")
P
  done
done
timeout 150 $B/runtime/gemmtune-heldout --results results --precision 3xtf32 --only tuned,heldout \
  -o $OUT/heldout-3xtf32.json > $OUT/heldout-3xtf32.log 2>&1
echo "heldout rc $?"; grep -E "geometric mean" $OUT/heldout-3xtf32.log
date -u +%FT%TZ
