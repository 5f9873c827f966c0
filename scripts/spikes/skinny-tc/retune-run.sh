#!/usr/bin/env bash
# Session 46 (one H200; .device-build carried): #44's small and skinny shapes re-tuned with the
# built-in spaces now that they offer cluster_k 2 (K halved in a cluster pair), bf16, fp16 and tf32
# with an FP32 C and bf16 and fp16 with a 16-bit C, into a copy of the shipped results; then the
# library over the tuned sets. Copy $OUT/$RESULTS back to ship it (the GPU's results file:
# RESULTS=nvidia-h100-80gb-hbm3.json on an H100).
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
source scripts/spikes/issue45-retune.sh
shipped_results  # what the library installs
SMALL=${SMALL:-512,1024,64x4096x4096,4096x64x4096}
with() { local s="" x; for x in ${1//,/ }; do s=$s${s:+,}$x:$2; done; echo $s; }
SIZES=$(with $SMALL bf16),$(with $SMALL fp16),$(with $SMALL tf32),$(with $SMALL bf16:c16),$(with $SMALL fp16:c16)
timeout ${TUNE_LIMIT:-300} $B/tuner/gemm-tune --gpu auto --sizes "$SIZES" --time-budget ${RETUNE_BUDGET:-6} -j16 \
  --results-dir "$OUT/results" > "$OUT/retune.log" 2>&1
echo "retune rc $? at $((SECONDS - T0)) s"; grep -A30 "^problem" "$OUT/retune.log" | cut -c1-150
library bf16 tuned 45; library tf32 tuned 45
timeout 60 $B/runtime/gemmtune-heldout --results "$OUT/results" --precision bf16 --c16 --only tuned \
  -o "$OUT/heldout-bf16-c16.json" > "$OUT/heldout-bf16-c16.log" 2>&1
echo "library bf16 c16 rc $? at $((SECONDS - T0)) s"; grep -E "geometric mean" "$OUT/heldout-bf16-c16.log"
date -u +%FT%TZ
RESULTS=${RESULTS:-nvidia-h200.json}
find "$OUT/results" -maxdepth 1 -name "*.json" ! -name "$RESULTS" -delete  # copies, unchanged
bring_back "$RESULTS"
