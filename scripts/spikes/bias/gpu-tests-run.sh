#!/usr/bin/env bash
# Session 47 (#46): the bias row in every family's epilogue, on the GPU. The kernel tests that take a
# bias now (gpu_tests: every family, split-K, clusters, 16-bit C) over what
# scripts/stage-device-build.sh staged in .device-build. Logs under $OUT.
#   run: bash scripts/spikes/bias/gpu-tests-run.sh
set -uo pipefail
: "${OUT:=/tmp/out}"; mkdir -p "$OUT"
export GEMMTUNE_CACHE_DIR=/tmp/gemmtune-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"; date -u | tee -a "$OUT/gpu.txt"
filter=${FILTER:-'GemmCorrectness.*:TensorCores.EveryPrecisionAndLayoutAtEdgeSizes:TensorCores.SixteenBitCEveryLayoutSplitAndBatch:Wgmma.EveryPrecisionAndLayoutAtEdgeSizes:Wgmma.SixteenBitC:SkinnyStream.*'}
start=$(date +%s)
timeout "${TIMEOUT:-540}" .device-build/tests/gpu_tests --gtest_filter="$filter" > "$OUT/gpu_tests.log" 2>&1
echo "rc=$? after $(( $(date +%s) - start )) s" | tee -a "$OUT/gpu_tests.log"
grep -E "^\[       OK|^\[  FAILED|^\[  PASSED|^\[  SKIPPED|Failure|expected" "$OUT/gpu_tests.log" | head -60
