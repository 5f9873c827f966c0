#!/usr/bin/env bash
# The race and the held-out bench timed from CUDA-graph replays (GPU time; .device-build carried):
# the tuner's GPU tests, a fresh tune of short problems, and the held-out bench over the shipped
# results. Logs and JSON under $OUT.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
: "${OUT:=/tmp/out}"; mkdir -p "$OUT"
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout 150 $B/tests/gpu_tests --gtest_brief=1 --gtest_filter='Isolation.*:Resume.*:WarmStart.*:MultiGpu.*' > $OUT/gpu.log 2>&1
  echo "gpu_tests (tuner) rc $? at $((SECONDS - T0)) s"; grep -E "^\[  (PASSED|FAILED) |^\[  FAILED" $OUT/gpu.log
fi
mkdir -p /tmp/r1
timeout 120 $B/tuner/gemm-tune --results-dir /tmp/r1 --sizes ${FP32_SIZES:-64,512,1024} --time-budget 4 > $OUT/tune-fp32.log 2>&1
echo "tune fp32 rc $? at $((SECONDS - T0)) s"; grep -E "x cuBLAS|winner|cuBLAS wins|->" $OUT/tune-fp32.log | tail -8
timeout 150 $B/tuner/gemm-tune --results-dir /tmp/r1 --precision bf16 \
  --sizes ${BF16_SIZES:-512:c16,1024:c16,64x1024x4096:nt:c16,8x4096x4096:nt:c16,1x4096x4096:nt:c16} --time-budget 4 > $OUT/tune-bf16.log 2>&1
echo "tune bf16 rc $? at $((SECONDS - T0)) s"; grep -E "x cuBLAS|winner|cuBLAS wins|->" $OUT/tune-bf16.log | tail -8
cp /tmp/r1/*.json $OUT/ 2>/dev/null
for run in "tuned fp32" "tuned bf16 --c16" "decode bf16 --c16"; do
  set -- $run
  left=$(( ${LIMIT:-560} - (SECONDS - T0) )); [ $left -gt 30 ] || break
  timeout $left $B/runtime/gemmtune-heldout --results results --only $1 --precision $2 ${3:-} \
    -o $OUT/heldout-$1-$2${3:+-c16}.json > $OUT/heldout-$1-$2.log 2>&1
  echo "heldout $run rc $? at $((SECONDS - T0)) s"; tail -4 $OUT/heldout-$1-$2.log
done
