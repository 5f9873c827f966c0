#!/usr/bin/env bash
# The GPU tier's tests that tier-and-decode.sh's time limit cut off (a fresh machine compiled the
# wgmma kernels cold), then the split-K-past-one-wave spike if time is left.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 420 $B/tests/gpu_tests --gtest_filter='Wgmma.*:SkinnyStream.*:Isolation.*:Resume.*:WarmStart.*:MultiGpu.*' \
  > $OUT/gpu_tests_rest.log 2>&1
echo "gpu_tests (rest) rc $? at $((SECONDS - T0)) s"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|^\[  FAILED|^\[       OK" $OUT/gpu_tests_rest.log
