#!/usr/bin/env bash
# Session 31's last device call: the bf16 decode bench on the H100 through the library with the
# shipped results (72 shapes tuned at 02:29), then the GPU tier over the final build.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 200 $B/runtime/gemmtune-heldout --results results --precision bf16 --only decode \
  -o $OUT/decode-bf16.json > $OUT/decode.log 2>&1
echo "decode bench rc $? at $((SECONDS - T0)) s"
timeout 260 $B/tests/gpu_tests > $OUT/gpu_tests.log 2>&1; echo "gpu_tests rc $? at $((SECONDS - T0)) s"
left=$((560 - (SECONDS - T0)))
timeout $left $B/tests/runtime_gpu_tests > $OUT/runtime_gpu_tests.log 2>&1; echo "runtime_gpu_tests rc $? at $((SECONDS - T0)) s"
timeout 20 $B/examples/tuned_sgemm results > $OUT/tuned_sgemm.log 2>&1; echo "tuned_sgemm rc $?"
timeout 15 $B/runtime/gemmtune-call-overhead > $OUT/overhead.log 2>&1; echo "overhead rc $?"
date -u +%FT%TZ
tail -3 $OUT/decode.log | cut -c1-150
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|^\[  FAILED" $OUT/gpu_tests.log $OUT/runtime_gpu_tests.log
tail -2 $OUT/tuned_sgemm.log; tail -2 $OUT/overhead.log
