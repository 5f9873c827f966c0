#!/usr/bin/env bash
# Session 43: the shipped H200 3xtf32 winner at 4096x64x4096 (wgmma 128x64, split-K 4, 55.9 TFLOP/s
# when tuned at 9242fb6) lost a re-tune to an mma.sync kernel at 52.7. This measures its binary
# beside its split-K and pretranspose siblings, exhaustively, in one run (tuning log to $OUT).
set -u; B=.device-build; r=$(mktemp -d); date -u +%FT%TZ
GEMMTUNE_CACHE_DIR=$(mktemp -d) $B/tuner/gemm-tune --gpu 0 --sizes 4096x64x4096:3xtf32 --strategy exhaustive \
  --space scripts/spikes/pretranspose/skinny-3xtf32-space.json -j16 --results-dir $r --no-warm-start > $OUT/skinny.log 2>&1
echo "rc $?"; tail -3 $OUT/skinny.log | cut -c1-160
python3 - $r/logs/*.jsonl <<'P'
import json, sys
for line in filter(str.strip, open(sys.argv[1])):
    r = json.loads(line)
    if 'median_ms' in r: print(f"{r.get('name', r.get('config', {}).get('name', '?')):52s} {r['median_ms']*1e3:8.2f} us  {r.get('status', '')}")
    else: print(r.get('name'), r.get('status'), r.get('detail', '')[:80])
P
