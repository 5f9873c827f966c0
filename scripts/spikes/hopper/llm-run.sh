#!/usr/bin/env bash
# device call 3 of session 31: issue #45's 8 LLM projections (m 512 and 4096 against LLaMA-2-7B's
# and -70B's widths) tuned in bf16 and fp16, and 6144 (the cube #45 names besides 4096 and 8192).
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
R=/tmp/R; rm -rf $R; cp -r results $R
for p in bf16 fp16; do
  SIZES=6144:$p
  for m in 512 4096; do for nk in 11008x4096 4096x11008 28672x8192 8192x28672; do SIZES=$SIZES,${m}x$nk:$p; done; done
  timeout 280 $B/tuner/gemm-tune --gpu auto --sizes $SIZES --time-budget 10 --results-dir $R > $OUT/tune-$p.log 2>&1
  echo "tune $p rc $? at $((SECONDS - T0)) s"
  cp $R/nvidia-h100-80gb-hbm3.json $OUT/
done
date -u +%FT%TZ
for p in bf16 fp16; do grep -A10 "^problem" $OUT/tune-$p.log | cut -c1-140; done
