#!/usr/bin/env bash
# device call 6: the shipped bf16 and fp16 nn problems re-tuned with the built-in spaces (the wgmma
# kernels now read nn), then the held-out bench through the library in bf16 over the result.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
R=/tmp/R; rm -rf $R; cp -r results $R
S=64x4096x4096,512,1000,1024,2048,4095,4096x64x4096,4096x4096x64,4096,8192
for p in bf16 fp16; do
  start=$(date +%s)
  timeout 230 $B/tuner/gemm-tune --gpu auto --sizes $S --precision $p --time-budget 8 --results-dir $R > $OUT/tune-$p.log 2>&1
  echo "tune $p rc $? in $(( $(date +%s) - start )) s"
done
cp $R/nvidia-h100-80gb-hbm3.json $OUT/
timeout 100 $B/runtime/gemmtune-heldout --results $R --precision bf16 --only tuned -o $OUT/heldout-bf16-tuned.json > $OUT/heldout.log 2>&1; echo "heldout rc $?"
date -u +%FT%TZ
for p in bf16 fp16; do grep -A11 "^problem" $OUT/tune-$p.log | cut -c1-120; done
tail -14 $OUT/heldout.log | cut -c1-150
