#!/usr/bin/env bash
# device call 1 of session 31: the wgmma family with split-K and row-by-row raster (which let it
# take problems of fewer tiles than SMs): its GPU tests, the 3xtf32 MN-major kernels after the
# splitters' address refactor (bench of the shipped winners), then the benchmark set's small and
# skinny shapes re-tuned in bf16 and 3xtf32 over the new spaces.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 330 $B/tests/gpu_tests --gtest_filter='Wgmma.*' > $OUT/wgmma_tests.log 2>&1; echo "wgmma tests rc $?"
R=/tmp/R; rm -rf $R; cp -r results $R
timeout 60 $B/tuner/gemm-tune bench --sizes 4096:3xtf32,8192:3xtf32,4096:tn:3xtf32 --results-dir $R > $OUT/bench.log 2>&1
echo "bench rc $?"
SIZES=512:bf16,1024:bf16,64x4096x4096:bf16,4096x64x4096:bf16,1024:3xtf32,64x4096x4096:3xtf32,4096x64x4096:3xtf32
timeout 300 $B/tuner/gemm-tune --gpu auto --sizes $SIZES --time-budget 15 --results-dir $R > $OUT/retune.log 2>&1
echo "retune rc $?"
cp $R/nvidia-h100-80gb-hbm3.json $OUT/
date -u +%FT%TZ
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|Failure" $OUT/wgmma_tests.log | head -20
tail -8 $OUT/bench.log | cut -c1-150
grep -A9 "^problem" $OUT/retune.log | cut -c1-140
