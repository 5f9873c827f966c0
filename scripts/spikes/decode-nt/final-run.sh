#!/usr/bin/env bash
# Session 38's last device call (H200), over a carried .device-build: the sgemm correctness tests
# (transpose_b kernels now read B in runs of 1 column; their whole-tile path is gone), the runtime
# gpu tests, then the six m = 32 nt decode shapes tuned from scratch with the default spaces (block_k
# 32 now allowed for transpose_b), into $OUT/d32.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 120 $B/tests/gpu_tests --gtest_filter='GemmCorrectness.*' > $OUT/gpu_tests.log 2>&1
echo "gpu_tests (GemmCorrectness) rc $? at $((SECONDS - T0)) s"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|^\[  FAILED|Failure" $OUT/gpu_tests.log | head
timeout 60 $B/tests/runtime_gpu_tests > $OUT/runtime_gpu_tests.log 2>&1; echo "runtime_gpu_tests rc $? at $((SECONDS - T0)) s"
grep -E "tests ran|^\[  FAILED|^\[  PASSED" $OUT/runtime_gpu_tests.log
mkdir -p $OUT/d32
timeout $((400 - (SECONDS - T0))) $B/tuner/gemm-tune --gpu auto --results-dir $OUT/d32 --time-budget 25 \
  --sizes 32x4096x4096:nt,32x4096x11008:nt,32x8192x8192:nt,32x8192x28672:nt,32x11008x4096:nt,32x28672x8192:nt \
  > $OUT/d32.log 2>&1
echo "tune rc $? at $((SECONDS - T0)) s"; grep -A8 "^problem" $OUT/d32.log
date -u +%FT%TZ
