#!/usr/bin/env bash
# Session 44's GPU call (one H200; .device-build and build-carry-python carried, site-old staged by
# python-overhead/stage-old.sh): the tuner's GPU tests with the results-entry one, the runtime and
# Python GPU tiers, the direct paths' host time against the commit before them, then the kernels'
# correctness suites in whatever time is left.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
summary() { grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|^\[  FAILED" "$1"; }
timeout 150 $B/tests/gpu_tests --gtest_filter='ResultsEntry.*:WarmStart.*:Isolation.*:Resume.*:MultiGpu.*' \
  > $OUT/gpu_tests_tuner.log 2>&1; echo "tuner tests rc $? at $((SECONDS - T0)) s"; summary $OUT/gpu_tests_tuner.log
RT_TIMEOUT=90 PY_TIMEOUT=170 bash build-carry-python/device-python.sh runtime,pytest > $OUT/python.txt 2>&1
echo "runtime + pytest at $((SECONDS - T0)) s"; grep -E "passed|failed|error|rc=|PASSED|FAILED" $OUT/python.txt | tail -8
REPEATS=${REPEATS:-3} ROUNDS=${ROUNDS:-30} bash scripts/spikes/python-overhead/host_ab.sh
echo "host A/B at $((SECONDS - T0)) s"
left=$((575 - (SECONDS - T0)))
if [ $left -gt 30 ]; then
  timeout $left $B/tests/gpu_tests --gtest_filter='GemmCorrectness.*:TensorCores.*' > $OUT/gpu_tests_kernels.log 2>&1
  echo "kernel tests rc $? at $((SECONDS - T0)) s"; summary $OUT/gpu_tests_kernels.log | tail -12
fi
date -u +%FT%TZ
