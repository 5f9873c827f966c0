#!/usr/bin/env bash
# device call 10: the GPU tier over this session's build, then the shipped nt problems of tf32,
# bf16 and 3xtf32 at 2048-8192 re-tuned over the widened spaces (clusters, raster groups).
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build
timeout 400 scripts/device-run.sh tests > $OUT/tier.txt 2>&1; echo "tier rc $?" >> $OUT/tier.txt
rm -f $OUT/gpu.txt
R=/tmp/R; rm -rf $R; cp -r results $R
SIZES=2048:nt:tf32,4096:nt:tf32,8192:nt:tf32,4096:nt:bf16,8192:nt:bf16,2048:nt:3xtf32,4096:nt:3xtf32,8192:nt:3xtf32
timeout 170 $B/tuner/gemm-tune --gpu auto --sizes $SIZES --time-budget 10 --results-dir $R > $OUT/retune.log 2>&1
echo "retune rc $?"
cp $R/nvidia-h100-80gb-hbm3.json $OUT/
date -u +%FT%TZ
grep -A9 "^problem" $OUT/retune.log | cut -c1-125
cat $OUT/tier.txt | tail -30
