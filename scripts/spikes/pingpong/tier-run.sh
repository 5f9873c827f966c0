#!/usr/bin/env bash
# Session 40's last device call (H200): the wgmma family's GPU tests (edge sizes in every precision
# and layout with the copies and the consumers in turn among them, the tuner's check, the rest of
# Wgmma.*), then the runtime's GPU tests.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout ${TEST_TIMEOUT:-330} $B/tests/gpu_tests --gtest_filter='Wgmma.*' > $OUT/wgmma_tests.log 2>&1
echo "Wgmma.* rc $? at $((SECONDS - T0)) s"
grep -E "^\[       OK|^\[  FAILED|tests ran|Failure|PASSED" $OUT/wgmma_tests.log | head -30; grep -E "^\[ RUN" $OUT/wgmma_tests.log | tail -1
timeout ${RUNTIME_TIMEOUT:-150} $B/tests/runtime_gpu_tests > $OUT/runtime_gpu_tests.log 2>&1
echo "runtime_gpu_tests rc $? at $((SECONDS - T0)) s"
grep -E "tests ran|^\[  FAILED|^\[  PASSED|^\[  SKIPPED" $OUT/runtime_gpu_tests.log
date -u +%FT%TZ
