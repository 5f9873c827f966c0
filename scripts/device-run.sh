#!/usr/bin/env bash
# Runs on the GPU machine (through the device tool), over a build made here by scripts/setup.sh:
# the gpu test tier, then whatever tuning command is given. Logs and results go under $OUT.
#   scripts/device-run.sh tests                 gpu + host tiers, the runtime example and its overhead bench
#   scripts/device-run.sh tune ARGS...          gemm-tune ARGS (results under $RESULTS_DIR or $OUT/results)
#   scripts/device-run.sh all ARGS...           both
# The build must have been made on an x86-64 machine with the CUDA toolkit in /usr/local/cuda;
# spdlog, fmt, CLI11, nlohmann/json and GoogleTest are header-only or static in it, so nothing but
# CUDA is needed on the GPU machine.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:=/tmp/gemmtune-out}"
mkdir -p "$OUT"
export GEMMTUNE_CACHE_DIR=${GEMMTUNE_CACHE_DIR:-/tmp/gemmtune-cache}
build=build
[ -d .device-build ] && build=.device-build  # scripts/stage-device-build.sh
mode=${1:-all}
shift || true
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
if [ "$mode" = tests ] || [ "$mode" = all ]; then
  ./$build/tests/gpu_tests 2>&1 | tee "$OUT/gpu_tests.log" | grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|FAILED" || status=1
  ./$build/tests/runtime_gpu_tests 2>&1 | tee "$OUT/runtime_gpu_tests.log" | grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|FAILED" || status=1
  ./$build/examples/tuned_sgemm results 2>&1 | tee "$OUT/tuned_sgemm.log" || status=1
  ./$build/runtime/gemmtune-call-overhead 2>&1 | tee "$OUT/call_overhead.log" || status=1
  # The whole log is kept: a summary's last lines do not name a failed test.
  ./$build/tests/host_tests --gtest_brief=1 > "$OUT/host_tests.log" 2>&1 || status=1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|FAILED" "$OUT/host_tests.log" | tee -a "$OUT/gpu_tests.log"
fi
if [ "$mode" = tune ] || [ "$mode" = all ]; then
  start=$(date +%s.%N)
  ./$build/tuner/gemm-tune --results-dir "${RESULTS_DIR:-$OUT/results}" "$@" 2>&1 | tee -a "$OUT/tune.log" || status=1
  python3 -c "import sys,time; print(f\"wall seconds: {time.time() - float(sys.argv[1]):.1f}\")" "$start" | tee -a "$OUT/tune.log"
fi
exit $status
