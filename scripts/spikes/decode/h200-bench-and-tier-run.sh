#!/usr/bin/env bash
# Session 32 on the H200: the decode bench through the library over the bf16 decode re-tune with the
# winner's race alone (.device-build/h200.json, carried), then the tuner's and the runtime's GPU tests
# after that tuner change, then compute-sanitizer over the mma family with what time is left.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
R=/tmp/R; rm -rf $R; cp -r results $R; cp $B/h200.json $R/nvidia-h200.json
timeout 270 $B/runtime/gemmtune-heldout --results $R --precision bf16 --only decode -o $OUT/decode-bf16.json \
  > $OUT/decode.log 2>&1
echo "decode bench rc $? at $((SECONDS - T0)) s"; tail -3 $OUT/decode.log | cut -c1-150
timeout 110 $B/tests/gpu_tests --gtest_filter='Isolation.*:Resume.*:WarmStart.*:MultiGpu.*' > $OUT/gpu_tuner.log 2>&1
echo "gpu_tests (tuner) rc $? at $((SECONDS - T0)) s"
timeout 70 $B/tests/runtime_gpu_tests > $OUT/runtime_gpu_tests.log 2>&1
echo "runtime_gpu_tests rc $? at $((SECONDS - T0)) s"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED" $OUT/gpu_tuner.log $OUT/runtime_gpu_tests.log
left=$((585 - (SECONDS - T0)))
[ $left -gt 60 ] && LIMIT=$left PER=90 TOOLS="memcheck racecheck" \
  SUITES="TensorCores.EveryPrecisionAndLayoutAtEdgeSizes=mma_gemm" bash scripts/spikes/sanitize-run.sh
