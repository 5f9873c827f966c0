#!/usr/bin/env bash
# Session 46 (one H200; .device-build carried): #44's skinny shapes raced exhaustively over
# wgmma-skinny-bf16.json, FP32 C and 16-bit C, against cuBLAS in the same race.
set -uo pipefail
B=.device-build; D=scripts/spikes/skinny-tc; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
export GEMMTUNE_CACHE_DIR=/tmp/gc
source scripts/spikes/exhaustive-race.sh
for size in ${SIZES:-64x4096x4096:bf16 64x4096x4096:bf16:c16 4096x64x4096:bf16 4096x64x4096:bf16:c16}; do
  RACE_TIMEOUT=150 race "race-${size//:/-}" wgmma-skinny-bf16.json "$size"
  python3 $D/top.py $OUT/race-${size//:/-} 15
done
tar czf $OUT/bring_back.tgz -C $OUT --exclude=bring_back.tgz . 2>/dev/null
date -u +%FT%TZ
