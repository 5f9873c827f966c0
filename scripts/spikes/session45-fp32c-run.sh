#!/usr/bin/env bash
# Session 45's last call (one H200; .device-build carried with the session's first tuner as
# tuner/gemm-tune-old): the wgmma epilogue's 16-byte stores of an FP32 C. The wgmma correctness tests
# (every precision and layout at edge sizes, beta -0.5 and 0, split-K reductions; the tuner's check;
# c16), an A/B of the same candidates at three shapes, then #44's small and skinny shapes re-tuned in
# bf16, fp16 and tf32 (FP32 C) and the library over the tuned set. Copy $OUT/nvidia-h200.json back.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 170 $B/tests/gpu_tests --gtest_filter='Wgmma.*:TensorCores.SixteenBitCEveryLayoutSplitAndBatch' \
  > $OUT/gpu_tests_wgmma.log 2>&1
echo "wgmma tests rc $? at $((SECONDS - T0)) s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|Failure" $OUT/gpu_tests_wgmma.log | head
for job in 4096x4096x64:bf16:wgmma-c16-ab 1024:bf16:wgmma-c16-ab 4096x4096x64:tf32:wgmma-tf32-ab; do
  size=${job%:*}; space=${job##*:}
  for which in old new; do
    tuner=$B/tuner/gemm-tune; [ $which = old ] && tuner=$B/tuner/gemm-tune-old
    GEMMTUNE_CACHE_DIR=/tmp/gc-$which timeout 40 $tuner --results-dir $OUT/ab-$which --strategy exhaustive \
      --space scripts/spikes/c16/$space.json --sizes $size --no-warm-start -j16 --top 12 >> $OUT/race-$which.log 2>&1
    echo "$size $which rc $? at $((SECONDS - T0)) s"
  done
done
python3 scripts/spikes/c16/compare_ab.py $OUT/ab-old $OUT/ab-new  # (inline when it ran)
rm -rf $OUT/ab-old $OUT/ab-new
source scripts/spikes/issue45-retune.sh
shipped_results  # what the library installs
SMALL=512,1024,64x4096x4096,4096x64x4096,4096x4096x64
retune bf16 $SMALL 40; retune fp16 $SMALL 40; retune tf32 $SMALL 40
library bf16 tuned 45; library tf32 tuned 45
date -u +%FT%TZ
find "$OUT/results" -maxdepth 1 -name "*.json" ! -name nvidia-h200.json -delete
bring_back nvidia-h200.json
