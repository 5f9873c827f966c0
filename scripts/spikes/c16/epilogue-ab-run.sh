#!/usr/bin/env bash
# Session 45 (one H200; .device-build carried with the previous tuner beside the new one as
# tuner/gemm-tune-old): the wgmma epilogue's 16-byte stores of a 16-bit C. The c16 correctness tests
# first, then the same 12 candidates a shape (wgmma-c16-ab.json) raced exhaustively by the old and the
# new tuner in turn, shape by shape, each with its own compile cache; the per-candidate medians of
# both logs side by side.
set -uo pipefail
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
[ "${SKIP_TESTS:-0}" = 1 ] || GEMMTUNE_CACHE_DIR=/tmp/gc timeout 200 $B/tests/gpu_tests \
  --gtest_filter='Wgmma.SixteenBitC:Wgmma.PassesTheTunersCheck:TensorCores.SixteenBitCEveryLayoutSplitAndBatch' \
  > $OUT/gpu_tests_c16.log 2>&1
[ "${SKIP_TESTS:-0}" = 1 ] || echo "c16 tests rc $? at $((SECONDS - T0)) s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|Failure" $OUT/gpu_tests_c16.log | head
SIZES=${SIZES:-4096x4096x64,1024,2048,4096,512x11008x4096}
for size in ${SIZES//,/ }; do
  for which in old new; do
    tuner=$B/tuner/gemm-tune; [ $which = old ] && tuner=$B/tuner/gemm-tune-old
    GEMMTUNE_CACHE_DIR=/tmp/gc-$which timeout 120 $tuner --results-dir $OUT/$which --strategy exhaustive \
      --space scripts/spikes/c16/wgmma-c16-ab.json --sizes $size:bf16:c16 --no-warm-start -j16 --top 12 \
      >> $OUT/race-$which.log 2>&1
    echo "$size $which rc $? at $((SECONDS - T0)) s"
  done
done
python3 scripts/spikes/c16/compare_ab.py $OUT/old $OUT/new  # (inline when it ran)
grep -A8 "^problem" $OUT/race-new.log | grep -v "^--" | cut -c1-150
date -u +%FT%TZ
