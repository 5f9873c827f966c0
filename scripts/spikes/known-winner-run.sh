#!/usr/bin/env bash
# Session 43: the known winner is measured even when a --time-budget runs out first (shape_tuner.cpp).
# The tuner tests, then three shipped 3xtf32 H200 problems re-tuned from a cold compile cache at
# --time-budget 4 and 1 on every GPU of the host, into copies of results/nvidia-h200.json.
set -u; B=.device-build; date -u +%FT%TZ
timeout 200 $B/tests/gpu_tests --gtest_filter='WarmStart.*:Isolation.*:Resume.*:MultiGpu.*' > $OUT/gpu_tests.log 2>&1; echo "tests rc $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|OK \]|FAILED" $OUT/gpu_tests.log
for tb in 4 1; do
  r=$(mktemp -d); cp results/nvidia-h200.json $r/
  GEMMTUNE_CACHE_DIR=$(mktemp -d) $B/tuner/gemm-tune --gpu all --sizes 4096x64x4096,64x4096x4096,2048 --precision 3xtf32 --time-budget $tb -j16 --results-dir $r --log-level debug > $OUT/known-$tb.log 2>&1; echo "time-budget $tb rc $?"
  grep -E "known winner|^(4096x64x4096|64x4096x4096|2048):3xtf32 " $OUT/known-$tb.log | cut -c1-160
done
date -u +%FT%TZ
