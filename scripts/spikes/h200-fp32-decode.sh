#!/usr/bin/env bash
# Session 44 (H200; .device-build carried): the H200's own FP32 decode entries. Its results held
# only the six m = 32 nt rows, so the library served the other FP32 decode calls from the H100's
# entries (the same compute capability). Measures the 36 decode rows of LAYOUT (nn; nt: M_VALUES
# "1 2 4 8 16", m = 32 being tuned already) through the library with the shipped results, tunes them
# into a copy of those results (the H100's winners order each search, --time-budget 4 a problem),
# and measures the same rows again with the copy; then the gpu tests of GPU_FILTER, if set, in the
# time left. Brings back nvidia-h200.json and one tarball (issue45-retune.sh's bring_back).
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
mkdir -p "$OUT/results" && cp results/*.json "$OUT/results/"
source scripts/spikes/issue45-retune.sh
decode() {  # decode LABEL RESULTS SECONDS
  timeout $3 $B/runtime/gemmtune-heldout --results "$2" --precision fp32 --only decode --layout ${LAYOUT:-nn} \
    -o "$OUT/decode-$1.json" > "$OUT/decode-$1.log" 2>&1
  echo "decode $1 rc $? at $((SECONDS - T0)) s"; grep -E "geometric|bandwidth" "$OUT/decode-$1.log" | cut -c1-200
}
decode shipped results 140
SIZES=""
for m in ${M_VALUES:-1 2 4 8 16 32}; do
  for nk in 4096x4096 11008x4096 4096x11008 8192x8192 28672x8192 8192x28672; do
    SIZES+="${SIZES:+,}${m}x${nk}${LAYOUT:+:$LAYOUT}"
  done
done
retune fp32 "$SIZES" ${TUNE_SECONDS:-250}
decode tuned "$OUT/results" 170
left=$((560 - (SECONDS - T0)))
if [ -n "${GPU_FILTER:-}" ] && [ $left -gt 40 ]; then
  timeout $left $B/tests/gpu_tests --gtest_filter="$GPU_FILTER" > "$OUT/gpu_tests.log" 2>&1
  echo "gpu_tests rc $? at $((SECONDS - T0)) s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|^\[  FAILED|^\[       OK" "$OUT/gpu_tests.log"
fi
date -u +%FT%TZ
find "$OUT/results" -maxdepth 1 -name "*.json" ! -name nvidia-h200.json -delete
bring_back nvidia-h200.json
