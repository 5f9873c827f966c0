#!/usr/bin/env bash
# Session 39's last device call (H200), over the final build (the mma kernels back as they were):
# the gpu tier's kernel tests and the runtime's gpu tests, then what the library delivers in fp16
# over #45's 19 shapes with the H200's new FP32-C entries.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 300 $B/tests/gpu_tests --gtest_filter='GemmCorrectness.*:TensorCores.*:Wgmma.*:SkinnyStream.*' \
  > $OUT/gpu_tests.log 2>&1; echo "gpu_tests (kernels) rc $? at $((SECONDS - T0)) s"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|^\[  FAILED" $OUT/gpu_tests.log
timeout 90 $B/tests/runtime_gpu_tests > $OUT/runtime_gpu_tests.log 2>&1; echo "runtime_gpu_tests rc $? at $((SECONDS - T0)) s"
grep -E "tests ran|^\[  FAILED|^\[  PASSED|^\[  SKIPPED" $OUT/runtime_gpu_tests.log
left=$((500 - (SECONDS - T0)))
if [ $left -gt 60 ]; then
  timeout $left $B/runtime/gemmtune-heldout --results results --precision fp16 --only tuned,llm \
    -o $OUT/heldout-fp16.json > $OUT/heldout-fp16.log 2>&1
  echo "heldout fp16 rc $? at $((SECONDS - T0)) s"; grep -E "geometric mean" $OUT/heldout-fp16.log
fi
date -u +%FT%TZ
