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
python3 - "$OUT" <<'PY'
import glob, json, sys
def medians(which):
    out = {}
    for f in glob.glob(f"{sys.argv[1]}/ab-{which}/logs/*.jsonl"):
        for line in open(f):
            if line.strip():
                e = json.loads(line)
                if e.get("type") == "evaluation" and e.get("status") == "ok":
                    out[(f"{e['m']}x{e['n']}x{e['k']}", e["name"])] = e["median_ms"] * 1e3
    return out
old, new = medians("old"), medians("new")
for key in sorted(set(old) & set(new)):
    print(f"{key[0]:16} {key[1]:44} {old[key]:9.2f} {new[key]:9.2f} {old[key] / new[key]:8.3f}")
for shape in sorted({k[0] for k in old} & {k[0] for k in new}):
    o = min(v for k, v in old.items() if k[0] == shape); n = min(v for k, v in new.items() if k[0] == shape)
    print(f"best at {shape}: old {o:.2f} us, new {n:.2f} us, {o / n:.3f}x")
PY
rm -rf $OUT/ab-old $OUT/ab-new
mkdir -p "$OUT/results" && cp results/nvidia-*.json results/portfolio-*.json "$OUT/results/"
source scripts/spikes/issue45-retune.sh
SMALL=512,1024,64x4096x4096,4096x64x4096,4096x4096x64
retune bf16 $SMALL 40; retune fp16 $SMALL 40; retune tf32 $SMALL 40
library bf16 tuned 45; library tf32 tuned 45
date -u +%FT%TZ
find "$OUT/results" -maxdepth 1 -name "*.json" ! -name nvidia-h200.json -delete
bring_back nvidia-h200.json
