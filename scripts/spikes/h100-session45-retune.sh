#!/usr/bin/env bash
# For the next session with an H100 (written 2026-11-29 in session 45, not run): session 45 made the
# wgmma epilogue store C 16 bytes a thread (on the H200: 4096x4096x64 bf16 with an FP32 C 0.824 ->
# 1.104x cuBLAS, with a 16-bit C 0.447 -> 1.046x; kernel-notes.md, session 45). The H100's entries were
# tuned with the old stores. Re-tunes, into a copy of the shipped H100 results, #44's small and skinny
# shapes with an FP32 C in bf16, fp16 and tf32, and the 16-bit-C (c16) benchmark and LLM shapes in bf16
# and fp16, then measures the library over them. One device call over a carried .device-build (after
# h100-session39-retune.sh, or instead of it); copy $OUT/nvidia-h100-80gb-hbm3.json back to ship it.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
source scripts/spikes/issue45-retune.sh
shipped_results  # what the library installs
SMALL=512,1024,64x4096x4096,4096x64x4096,4096x4096x64
retune bf16 $SMALL 40; retune fp16 $SMALL 40; retune tf32 $SMALL 40
with() { local s="" x; for x in ${1//,/ }; do s=$s${s:+,}$x:$2:c16; done; echo $s; }
timeout 200 $B/tuner/gemm-tune --gpu auto --sizes "$(with $BENCH,$LLM bf16),$(with $BENCH,$LLM fp16)" --time-budget 4 -j16 \
  --results-dir "$OUT/results" > "$OUT/retune-c16.log" 2>&1
echo "retune c16 rc $? at $((SECONDS - T0)) s"; grep -A40 "^problem" "$OUT/retune-c16.log" | cut -c1-130
library bf16 tuned 45; library fp16 tuned 45; library tf32 tuned 45
for p in bf16 fp16; do
  timeout 60 $B/runtime/gemmtune-heldout --results "$OUT/results" --precision $p --c16 --only tuned,llm \
    -o "$OUT/heldout-$p-c16.json" > "$OUT/heldout-$p-c16.log" 2>&1
  echo "heldout $p c16 rc $? at $((SECONDS - T0)) s"; grep -E "geometric mean" "$OUT/heldout-$p-c16.log"
done
date -u +%FT%TZ
find "$OUT/results" -maxdepth 1 -name "*.json" ! -name nvidia-h100-80gb-hbm3.json -delete
bring_back nvidia-h100-80gb-hbm3.json
