#!/usr/bin/env bash
# Session 38's first device call (H200): the block_k-16 3xtf32 tests and the two small-K shapes
# tuned first (scripts/spikes/tensor-core/small-k-run.sh), then the rest of the gpu tier with the
# time left. Over a carried .device-build (scripts/stage-device-build.sh).
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
TUNE_LIMIT=150 TIME_BUDGET=45 bash scripts/spikes/tensor-core/small-k-run.sh
left=$((570 - (SECONDS - T0)))
timeout $left $B/tests/gpu_tests --gtest_filter='-TensorCores.ThreeTf32*:TensorCores.EveryPrecisionAndLayoutAtEdgeSizes' \
  > $OUT/gpu_tests.log 2>&1; echo "gpu_tests (rest) rc $? at $((SECONDS - T0)) s"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|^\[  FAILED" $OUT/gpu_tests.log
grep -E "^\[ RUN" $OUT/gpu_tests.log | tail -1
date -u +%FT%TZ
