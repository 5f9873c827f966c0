#!/usr/bin/env bash
# Session 39's fourth device call (H200): with the wgmma spaces widened (64-row and 64-column tiles,
# rings up to 12 stages) and the launch overlap, a fresh user's bf16 search (512, 1024, 4096; empty
# results, cold compile cache; #44: <= 90 s), then the tensor-core benchmark shapes re-tuned into a
# copy of the shipped results: bf16 and fp16 over #45's 19 (the 11 benchmark shapes and 8 LLM
# projections), tf32 over the 11. The results files that changed come back.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
PRECISIONS=bf16 bash scripts/spikes/fresh-user.sh
echo "fresh at $((SECONDS - T0)) s"
R=/tmp/R; rm -rf $R; cp -r results $R
BENCH=512,1000,1024,2048,3000,4095,4096,8192,64x4096x4096,4096x64x4096,4096x4096x64
LLM=512x11008x4096,512x4096x11008,512x28672x8192,512x8192x28672,4096x11008x4096,4096x4096x11008,4096x28672x8192,4096x8192x28672
for job in bf16:$BENCH,$LLM fp16:$BENCH,$LLM tf32:$BENCH; do
  p=${job%%:*}
  timeout ${PER_PRECISION:-170} $B/tuner/gemm-tune --gpu auto --sizes "${job#*:}" --precision $p --time-budget 5 \
    -j16 --results-dir $R > $OUT/retune-$p.log 2>&1
  echo "retune $p rc $? at $((SECONDS - T0)) s"
  grep -A20 "^problem" $OUT/retune-$p.log | cut -c1-130
done
for f in $R/*.json; do cmp -s $f results/${f##*/} || cp $f $OUT/; done
date -u +%FT%TZ
