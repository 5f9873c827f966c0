#!/usr/bin/env bash
# 3xtf32 at small K with block_k 16 (docs/kernel-notes.md, session 37), on the GPU machine over a
# carried .device-build (scripts/stage-device-build.sh): the gpu tests that hold block_k 16 to its
# prediction, then the two benchmark shapes whose every block_k-32/64 kernel failed the accuracy
# check, tuned into a copy of the shipped results ($OUT/results) with the race's errors logged.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=${GEMMTUNE_CACHE_DIR:-/tmp/gc}
B=.device-build; T0=$SECONDS
: "${OUT:=/tmp/small-k-out}"
mkdir -p "$OUT/results"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 200 $B/tests/gpu_tests --gtest_filter='TensorCores.ThreeTf32*:TensorCores.EveryPrecisionAndLayoutAtEdgeSizes' \
  > "$OUT/gpu.log" 2>&1
echo "gpu_tests rc $? at $((SECONDS - T0)) s"
grep -E "normwise error|^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED" "$OUT/gpu.log"
cp results/nvidia-*.json "$OUT/results/"
timeout ${TUNE_LIMIT:-240} $B/tuner/gemm-tune --gpu auto --results-dir "$OUT/results" \
  --sizes 512:3xtf32,4096x4096x64:3xtf32 --time-budget ${TIME_BUDGET:-60} > "$OUT/tune.log" 2>&1
echo "tune rc $? at $((SECONDS - T0)) s"; tail -8 "$OUT/tune.log"
