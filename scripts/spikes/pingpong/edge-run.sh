#!/usr/bin/env bash
# Session 40: the consumers in turn at edge sizes through the tuner's check, every candidate with a
# 10 s evaluation limit (a hang shows as a timeout), to find the case behind the hung GPU test.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS; D=scripts/spikes/pingpong
for sizes in 300x520x200:nt:bf16 257x130x72:nt:b2:bf16 96x64x1000:nt:b4:bf16; do
  timeout 60 $B/tuner/gemm-tune --results-dir $OUT/edge --space $D/wgmma-pingpong-edge-bf16.json --strategy exhaustive \
    --sizes $sizes --no-warm-start -j16 --eval-timeout 8 --log-level debug > $OUT/edge-${sizes%%:*}.log 2>&1
  echo "$sizes rc $? at $((SECONDS - T0)) s"
  grep -iE "timed out|timeout|failed|wrong|mismatch" $OUT/edge-${sizes%%:*}.log | cut -c1-200 | head -8
  grep -A3 "^problem" $OUT/edge-${sizes%%:*}.log | cut -c1-150
done
