#!/usr/bin/env bash
# For the next session's GPU (written 2026-11-29, session 41, not run): the pingpong spaces list their
# values best first since the last fresh searches, so the surrogate's first pingpong measurement is
# the race's best (6 stages, clusters of 2). Did that make a fresh user's search find the consumers in
# turn at 4096 (bf16 ended on 128x256 shared tiles at 0.944x cuBLAS, tf32 on 256x128 at 0.913)? A
# fresh user's bf16, fp16 and tf32 searches of 4096 and 8192 (empty results, cold compile caches).
set -uo pipefail
B=${B:-.device-build}; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
for p in bf16 fp16 tf32; do
  cache=$(mktemp -d); res=$(mktemp -d)
  GEMMTUNE_CACHE_DIR=$cache timeout 120 $B/tuner/gemm-tune --gpu auto --sizes 4096,8192 --precision $p \
    --results-dir $res > $OUT/fresh-$p.log 2>&1
  echo "fresh $p rc $? at $((SECONDS - T0)) s"; grep -A3 "^problem" $OUT/fresh-$p.log | cut -c1-130
done
