#!/usr/bin/env bash
# Spike (session 31): the mma.sync bf16 kernel at decode rows m = 4 and 8 with 32-row tiles, which
# the load-balance rule refuses today (more than half the tile's rows unused). At m <= 16 a call is
# bound by reading B once, and the tensor cores have the compute to spare.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
SIZES=""
for l in nn nt; do for nk in 4096x4096 11008x4096 4096x11008 8192x8192 28672x8192 8192x28672; do
  for m in 4 8; do SIZES=$SIZES${SIZES:+,}${m}x$nk:$l:bf16; done; done; done
timeout 400 $B/tuner/gemm-tune --gpu auto --sizes $SIZES --time-budget 4 \
  --space scripts/spikes/decode/mma-bf16-rows.json --results-dir $OUT/d > $OUT/rows.log 2>&1
echo "rows rc $? at $((SECONDS - T0)) s"
grep -A26 "^problem" $OUT/rows.log | cut -c1-140
