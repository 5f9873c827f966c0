#!/usr/bin/env bash
# device call 4: the wgmma 3xtf32 layouts checked, the shipped 3xtf32 nn problems re-tuned with
# them, and the held-out bench through the library over the re-tuned results.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 200 $B/tests/gpu_tests --gtest_brief=1 --gtest_filter='Wgmma.*' > $OUT/gpu.log 2>&1; echo "gpu_tests rc $?"
grep -E "FAILED|PASSED|Failure" $OUT/gpu.log | head -10
R=/tmp/R; rm -rf $R; cp -r results $R
SIZES=512:3xtf32,1000:3xtf32,1024:3xtf32,2048:3xtf32,3000:3xtf32,4095:3xtf32,4096:3xtf32,8192:3xtf32,64x4096x4096:3xtf32,4096x4096x64:3xtf32,4096x64x4096:3xtf32
start=$(date +%s)
timeout 330 $B/tuner/gemm-tune --gpu auto --sizes $SIZES --time-budget 15 --results-dir $R > $OUT/tune.log 2>&1; echo "tune rc $? in $(( $(date +%s) - start )) s"
cp $R/nvidia-h100-80gb-hbm3.json $OUT/
timeout 200 $B/runtime/gemmtune-heldout --results $R --precision 3xtf32 -o $OUT/heldout-3xtf32.json > $OUT/heldout.log 2>&1; echo "heldout rc $?"
date -u +%FT%TZ
grep -A14 "^problem" $OUT/tune.log
tail -25 $OUT/heldout.log
