#!/usr/bin/env bash
# device calls 2 and 3 (2026-11-26): the staged-B splitter variants, each a gemm-tune built with one
# version of kernel_templates/wgmma.cuh's splitter loop (v0 = .device-build; v1, v2, v3 copied into
# build-carry-v/, not kept): docs/performance.md has the table. Kept as the record of how it ran.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
for v in v2 v3; do
  exe=build-carry-v/gemm-tune-$v; [ $v = v0 ] && exe=.device-build/tuner/gemm-tune
  GEMMTUNE_CACHE_DIR=/tmp/gc-$v timeout 150 $exe --gpu auto --sizes 4096:nn:3xtf32,4096:tn:3xtf32,8192:nn:3xtf32,2048:nn:3xtf32,4096:nt:3xtf32 \
    --space configs/wgmma-3xtf32.json --time-budget 6 --results-dir $OUT/r-$v > $OUT/tune-$v.log 2>&1
  echo "== $v rc $?"; grep -A5 "^problem" $OUT/tune-$v.log
done
