#!/usr/bin/env bash
# On the GPU machine: the m = 32 (and 16) transposed-B sweeps of this folder, each space exhaustive,
# the tuner's own race against cuBLAS; every evaluation lands in $OUT/<space>/logs/<gpu>.jsonl.
#   bash scripts/spikes/decode-nt/run.sh SPACE:SIZES ...   (after scripts/stage-device-build.sh)
set -u
cd "$(dirname "$0")/../../.."
export GEMMTUNE_CACHE_DIR=${GEMMTUNE_CACHE_DIR:-/tmp/gemmtune-cache}
for job in "$@"; do
  space=${job%%:*} sizes=${job#*:}
  ./.device-build/tuner/gemm-tune --results-dir "$OUT/$space" --space "scripts/spikes/decode-nt/$space.json" \
    --strategy exhaustive --sizes "$sizes" --no-warm-start -j16 --top 3 > "$OUT/$space.log" 2>&1
  grep -A8 "^problem" "$OUT/$space.log"
done
