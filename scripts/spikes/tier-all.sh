#!/usr/bin/env bash
# The GPU tier in one call, without device-run.sh's host tier (CI runs it): gpu_tests, the runtime's
# GPU tests, the runtime example and the call-overhead bench. A fresh machine compiles every test
# kernel cold (about 440 s on an H100 for gpu_tests).
set -uo pipefail
export GEMMTUNE_CACHE_DIR=${GEMMTUNE_CACHE_DIR:-/tmp/gc}
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout ${GPU_LIMIT:-470} $B/tests/gpu_tests > $OUT/gpu_tests.log 2>&1
echo "gpu_tests rc $? at $((SECONDS - T0)) s"
timeout 70 $B/tests/runtime_gpu_tests > $OUT/runtime_gpu_tests.log 2>&1
echo "runtime_gpu_tests rc $? at $((SECONDS - T0)) s"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|^\[  FAILED" $OUT/gpu_tests.log $OUT/runtime_gpu_tests.log
timeout 20 $B/examples/tuned_sgemm results 2>&1 | tail -2
timeout 20 $B/runtime/gemmtune-call-overhead 2>&1 | tail -2
