#!/usr/bin/env bash
# device call 2: the staged-B splitter variants (v0 = .device-build, v1, v2 in build-carry-v/).
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
for v in v2 v3; do
  exe=build-carry-v/gemm-tune-$v; [ $v = v0 ] && exe=.device-build/tuner/gemm-tune
  GEMMTUNE_CACHE_DIR=/tmp/gc-$v timeout 150 $exe --gpu auto --sizes 4096:nn:3xtf32,4096:tn:3xtf32,8192:nn:3xtf32,2048:nn:3xtf32,4096:nt:3xtf32 \
    --space configs/wgmma-3xtf32.json --time-budget 6 --results-dir $OUT/r-$v > $OUT/tune-$v.log 2>&1
  echo "== $v rc $?"; grep -A5 "^problem" $OUT/tune-$v.log
done
