#!/usr/bin/env bash
# Session 32: does the final race's company bias it? The H200's outlying decode shapes tuned with the
# default final race (--top 5: five finalists, cuBLAS and cuBLASLt interleaved) and with --top 1 (the
# best alone against them), each into its own copy of the shipped results, then each winner measured
# again by gemm-tune bench (a race of the winner alone, in a fresh process).
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
S=4x8192x8192,4x8192x28672,2x8192x8192,8x4096x4096
for top in 5 1 5; do
  R=/tmp/R$top-$SECONDS; cp -r results $R
  timeout 120 $B/tuner/gemm-tune --gpu auto --sizes $S --precision bf16 --time-budget 4 --top $top --results-dir $R \
    > $OUT/tune-top$top.log 2>&1
  echo "== top $top: tune rc $? at $((SECONDS - T0)) s"; grep -A5 "^problem" $OUT/tune-top$top.log | cut -c1-120
  timeout 100 $B/tuner/gemm-tune bench --sizes $S --precision bf16 --results-dir $R > $OUT/bench-top$top.log 2>&1
  echo "   bench rc $? at $((SECONDS - T0)) s"; grep -E "^[0-9]+x" $OUT/bench-top$top.log | cut -c1-120
done
