#!/usr/bin/env bash
# device call 1: 3xtf32 wgmma in every layout: correctness, then speed against cuBLAS SGEMM.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u +%FT%TZ
timeout 330 $B/tests/gpu_tests --gtest_brief=1 --gtest_filter='Wgmma.*:TensorCores.Fp16Sm75*:TensorCores.ThreeTf32*' > $OUT/gpu.log 2>&1; echo "gpu_tests rc $?"
grep -E "FAILED|PASSED|SKIPPED|Failure|expected|error" $OUT/gpu.log | head -30
timeout 200 $B/tuner/gemm-tune --gpu auto --sizes 4096:nt:3xtf32,4096:nn:3xtf32,4096:tn:3xtf32,4096:tt:3xtf32,8192:nn:3xtf32,2048:nn:3xtf32 --space configs/wgmma-3xtf32.json --time-budget 8 --results-dir $OUT/r > $OUT/tune.log 2>&1; echo "tune rc $?"
grep -vE "^\s*$" $OUT/tune.log | tail -40
