#!/usr/bin/env bash
# Session 46's last device call (one H200; .device-build carried, the final build): the GPU tier's
# tuner tests (the search space, the static model and load_balance took cluster_k), the runtime's GPU
# tests, and the 16-bit C test across families.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 100 $B/tests/gpu_tests --gtest_filter='Isolation.*:Resume.*:WarmStart.*:MultiGpu.*' > $OUT/gpu.log 2>&1
echo "gpu_tests (tuner) rc $? at $((SECONDS - T0)) s"
timeout 60 $B/tests/runtime_gpu_tests > $OUT/rt.log 2>&1; echo "runtime_gpu_tests rc $? at $((SECONDS - T0)) s"
timeout $((200 - (SECONDS - T0))) $B/tests/gpu_tests --gtest_filter='TensorCores.SixteenBitCEveryLayoutSplitAndBatch' \
  > $OUT/c16.log 2>&1; echo "gpu_tests (c16) rc $? at $((SECONDS - T0)) s"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED|tests ran" $OUT/gpu.log $OUT/rt.log $OUT/c16.log
date -u +%FT%TZ
