#!/usr/bin/env bash
# Issue #42 on the H100 in bf16: the 72 decode shapes (m 1 to 32 against LLaMA-2-7B's and -70B's
# widths, nn and nt) tuned into a copy of the shipped results (STEP=tune; the tuner resumes a run
# that was cut off), then the decode bench through the library (STEP=bench).
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
R=/tmp/R; rm -rf $R; cp -r results $R
if [ "${STEP:-tune}" = tune ]; then
  SIZES=""
  for l in nn nt; do for nk in 4096x4096 11008x4096 4096x11008 8192x8192 28672x8192 8192x28672; do
    for m in 1 2 4 8 16 32; do SIZES=$SIZES${SIZES:+,}${m}x$nk:$l:bf16; done; done; done
  timeout ${LIMIT:-540} $B/tuner/gemm-tune --gpu auto --sizes $SIZES --time-budget 4 --results-dir $R > $OUT/tune.log 2>&1
  echo "tune rc $? at $((SECONDS - T0)) s"
  cp $R/nvidia-h100-80gb-hbm3.json $OUT/
  grep -c "bf16" <(grep -A80 "^problem" $OUT/tune.log) ; tail -3 $OUT/tune.log | cut -c1-150
else
  timeout 400 $B/runtime/gemmtune-heldout --results $R --precision bf16 --only decode \
    -o $OUT/decode-bf16.json > $OUT/decode.log 2>&1
  echo "decode bench rc $? at $((SECONDS - T0)) s"
  tail -4 $OUT/decode.log | cut -c1-150
fi
