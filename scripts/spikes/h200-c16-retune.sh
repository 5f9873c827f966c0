#!/usr/bin/env bash
# Session 45 (one H200, .device-build carried): the H200's 16-bit-C ("c16") entries were tuned on
# 2026-11-27, before sessions 39-43 gave the wgmma family 64-row tiles, deep rings, consumers in
# turn and split-K grids that do not launch early; their best kernels sit at 0.44-0.90 of cuBLAS where
# the same shapes with an FP32 C reach 0.82-1.0. c16 is what torch's bf16 and fp16 calls are (a
# 16-bit tensor in, the same out). Measures the library over the benchmark and LLM sets in c16 with
# the shipped results, re-tunes them with the built-in spaces into a copy, and measures again in the
# same call. Copy $OUT/nvidia-h200.json back to ship it.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
source scripts/spikes/issue45-retune.sh
shipped_results  # what the library installs
c16_library() {  # NAME PRECISION SETS [--layout L]
  local name=$1 p=$2 sets=$3; shift 3
  timeout 90 $B/runtime/gemmtune-heldout --results "$OUT/results" --precision $p --c16 --only $sets "$@" \
    -o "$OUT/$name.json" > "$OUT/$name.log" 2>&1
  echo "$name rc $? at $((SECONDS - T0)) s"; grep -E "geometric mean" "$OUT/$name.log"
}
measure() {  # WHEN
  c16_library $1-bf16 bf16 tuned,llm; c16_library $1-bf16-nt bf16 llm --layout nt; c16_library $1-fp16 fp16 tuned,llm
}
[ "${MEASURE_BEFORE:-1}" = 1 ] && measure before
nt() { local s="" x; for x in ${1//,/ }; do s=$s${s:+,}$x:nt; done; echo $s; }
with() { local s="" x; for x in ${1//,/ }; do s=$s${s:+,}$x:$2:c16; done; echo $s; }
SIZES=$(with $BENCH,$LLM,$(nt $LLM) bf16),$(with $BENCH,$LLM fp16)
timeout ${TUNE_LIMIT:-260} $B/tuner/gemm-tune --gpu auto --sizes "$SIZES" --time-budget ${RETUNE_BUDGET:-4} -j16 \
  --results-dir "$OUT/results" > "$OUT/retune.log" 2>&1
echo "retune rc $? at $((SECONDS - T0)) s"; grep -A60 "^problem" "$OUT/retune.log" | cut -c1-150
measure after
date -u +%FT%TZ
find "$OUT/results" -maxdepth 1 -name "*.json" ! -name nvidia-h200.json -delete  # copies, unchanged
bring_back nvidia-h200.json
