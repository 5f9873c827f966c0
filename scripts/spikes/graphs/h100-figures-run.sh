#!/usr/bin/env bash
# H100, the README's tensor-core rows again with the held-out bench on graph replays, after the
# portfolio's unmeasured points. Carry .device-build. Files under $OUT.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
: "${OUT:=/tmp/out}"; mkdir -p "$OUT"
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 100 $B/tuner/gemm-tune portfolio --results-dir results > $OUT/portfolio.log 2>&1
echo "portfolio rc $? at $((SECONDS - T0)) s"; tail -2 $OUT/portfolio.log
cp results/portfolio-nvidia-h100-80gb-hbm3.json $OUT/
for run in "heldout,tuned,llm bf16" "tuned,llm fp16" "tuned 3xtf32" "decode bf16"; do
  set -- $run
  left=$(( 575 - (SECONDS - T0) )); [ $left -gt 30 ] || break
  tag=$(echo $1 | tr ',' '-')-$2
  timeout $left $B/runtime/gemmtune-heldout --results results --only $1 --precision $2 -o $OUT/heldout-$tag.json \
    > $OUT/heldout-$tag.log 2>&1
  echo "heldout $tag rc $? at $((SECONDS - T0)) s"; grep -E "geometric mean|copy bandwidth" $OUT/heldout-$tag.log
done
