#!/usr/bin/env bash
# The 72 bf16 decode shapes re-tuned over the built-in spaces (session 31: 32-row mma tiles for
# decode rows, min_counted_rows, and warps of 16 rows; session 32: the same on the H200), the decode
# bench through the library with those results, then a fresh user's bf16 search. Any GPU: the
# results files the tune changed come back.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
R=/tmp/R; rm -rf $R; cp -r results $R
SIZES=""
for l in nn nt; do for nk in 4096x4096 11008x4096 4096x11008 8192x8192 28672x8192 8192x28672; do
  for m in 1 2 4 8 16 32; do SIZES=$SIZES${SIZES:+,}${m}x$nk:$l:bf16; done; done; done
timeout ${TUNE_LIMIT:-280} $B/tuner/gemm-tune --gpu auto --sizes $SIZES --time-budget 4 --results-dir $R ${TUNE_ARGS:-} > $OUT/tune.log 2>&1
echo "tune rc $? at $((SECONDS - T0)) s"
for f in $R/*.json; do cmp -s $f results/${f##*/} || cp $f $OUT/; done
timeout 200 $B/runtime/gemmtune-heldout --results $R --precision bf16 --only decode -o $OUT/decode-bf16.json \
  > $OUT/decode.log 2>&1
echo "decode bench rc $? at $((SECONDS - T0)) s"
left=$((${FRESH_UNTIL:-585} - (SECONDS - T0)))
[ $left -gt 30 ] && PRECISIONS=bf16 timeout $left bash scripts/spikes/fresh-user.sh
tail -3 $OUT/decode.log | cut -c1-150
