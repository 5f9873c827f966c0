#!/usr/bin/env bash
# Session 39's fifth device call (H200), over a carried .device-build: the whole gpu tier and the
# runtime's gpu tests on the build whose wgmma and mma kernels let the next grid launch early, then
# what the library delivers in bf16 over #45's sets (11 tuned shapes, 8 LLM projections, 38 held-out)
# with the H200's new FP32-C entries.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 380 $B/tests/gpu_tests > $OUT/gpu_tests.log 2>&1; echo "gpu_tests rc $? at $((SECONDS - T0)) s"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|^\[  FAILED" $OUT/gpu_tests.log; grep -E "^\[ RUN" $OUT/gpu_tests.log | tail -1
timeout 90 $B/tests/runtime_gpu_tests > $OUT/runtime_gpu_tests.log 2>&1; echo "runtime_gpu_tests rc $? at $((SECONDS - T0)) s"
grep -E "tests ran|^\[  FAILED|^\[  PASSED|^\[  SKIPPED" $OUT/runtime_gpu_tests.log
left=$((570 - (SECONDS - T0)))
if [ $left -gt 60 ]; then
  timeout $left $B/runtime/gemmtune-heldout --results results --precision bf16 --only tuned,llm,heldout \
    -o $OUT/heldout-bf16.json > $OUT/heldout-bf16.log 2>&1
  echo "heldout bf16 rc $? at $((SECONDS - T0)) s"; grep -E "geometric mean" $OUT/heldout-bf16.log
fi
date -u +%FT%TZ
