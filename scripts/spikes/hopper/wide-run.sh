#!/usr/bin/env bash
# device call 9: the wgmma spaces widened (clusters, non-persistent launches, raster groups) on the
# shapes where the family is short of #45's targets.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; S=scripts/spikes/hopper/spaces
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
for p in tf32 bf16 3xtf32; do
  case $p in tf32) sizes=4096:nt:tf32,8192:nt:tf32 ;; bf16) sizes=4096:nt:bf16,8192:nt:bf16 ;; 3xtf32) sizes=4096:nt:3xtf32,8192:nt:3xtf32,4096:3xtf32 ;; esac
  timeout 170 $B/tuner/gemm-tune --gpu auto --sizes $sizes --space $S/wgmma-$p-wide.json --time-budget 15 \
    --results-dir $OUT/r > $OUT/tune-$p.log 2>&1; echo "tune $p rc $?"
done
date -u +%FT%TZ
for p in tf32 bf16 3xtf32; do grep -A4 "^problem" $OUT/tune-$p.log | cut -c1-125; done
