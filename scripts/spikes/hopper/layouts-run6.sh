#!/usr/bin/env bash
# device call 7: tf32 in the layouts other than nt (the A-in-registers kernel, one pass): checked
# and timed; 3xtf32 nn timed again after the consumer loop's rewrite; the held-out bench's tuned
# set in bf16 over the shipped results.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 300 $B/tests/gpu_tests --gtest_brief=1 --gtest_filter='Wgmma.*' > $OUT/gpu.log 2>&1; echo "gpu_tests rc $?"
grep -E "FAILED|PASSED|Failure" $OUT/gpu.log | head -10
grep -E -A3 "Failure" $OUT/gpu.log | head -20
timeout 120 $B/tuner/gemm-tune --gpu auto --sizes 4096:nt:tf32,4096:tf32,4096:tn:tf32,4096:tt:tf32,8192:tf32 \
  --space configs/wgmma-tf32.json --time-budget 8 --results-dir $OUT/r > $OUT/tune-tf32.log 2>&1; echo "tune tf32 rc $?"
timeout 60 $B/tuner/gemm-tune --gpu auto --sizes 4096:3xtf32,8192:3xtf32 \
  --space configs/wgmma-3xtf32.json --time-budget 6 --results-dir $OUT/r > $OUT/tune-3x.log 2>&1; echo "tune 3xtf32 rc $?"
timeout 100 $B/runtime/gemmtune-heldout --results results --precision bf16 --only tuned -o $OUT/heldout-bf16-tuned.json > $OUT/heldout.log 2>&1; echo "heldout rc $?"
date -u +%FT%TZ
grep -A6 "^problem" $OUT/tune-tf32.log | cut -c1-120
grep -A3 "^problem" $OUT/tune-3x.log | cut -c1-120
head -2 $OUT/heldout.log | cut -c1-200; tail -13 $OUT/heldout.log | cut -c1-150
