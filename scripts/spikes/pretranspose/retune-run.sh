#!/usr/bin/env bash
# Session 40's fourth device call (H200): tf32 re-tuned with the built-in space that now offers
# pretranspose, into a copy of the shipped results: the 11 benchmark shapes (nn) and 4096 in every
# layout, 2048 and 8192 in tn (cuBLAS TF32's weak layout); then what the library delivers in tf32
# over the tuned and held-out sets. The results files that changed come back.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
R=/tmp/R; rm -rf $R; cp -r results $R
BENCH=512,1000,1024,2048,3000,4095,4096,8192,64x4096x4096,4096x64x4096,4096x4096x64
timeout 300 $B/tuner/gemm-tune --gpu auto --sizes "$BENCH,4096:tn,4096:tt,2048:tn,8192:tn" --precision tf32 \
  --time-budget 5 -j16 --results-dir $R > $OUT/retune-tf32.log 2>&1
echo "retune tf32 rc $? at $((SECONDS - T0)) s"; grep -A20 "^problem" $OUT/retune-tf32.log | cut -c1-140
left=$((560 - (SECONDS - T0)))
timeout $left $B/runtime/gemmtune-heldout --results $R --precision tf32 --only tuned,heldout \
  -o $OUT/heldout-tf32.json > $OUT/heldout-tf32.log 2>&1
echo "heldout tf32 rc $? at $((SECONDS - T0)) s"; grep -E "geometric mean|lowest" $OUT/heldout-tf32.log
for f in $R/*.json; do cmp -s $f results/${f##*/} || cp $f $OUT/; done
date -u +%FT%TZ
