#!/usr/bin/env bash
# After the last tuner change (load_balance's min_counted_rows): the GPU tier's tuner tests and the
# runtime's GPU tests over the final build.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 100 $B/tests/gpu_tests --gtest_filter='Isolation.*:Resume.*:WarmStart.*:MultiGpu.*' > $OUT/gpu.log 2>&1
echo "gpu_tests (tuner) rc $? at $((SECONDS - T0)) s"
timeout 60 $B/tests/runtime_gpu_tests > $OUT/rt.log 2>&1; echo "runtime_gpu_tests rc $? at $((SECONDS - T0)) s"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED" $OUT/gpu.log $OUT/rt.log
