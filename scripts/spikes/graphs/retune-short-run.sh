#!/usr/bin/env bash
# Re-tunes, with the race on graph replays, the problems of this GPU's shipped results whose
# recorded cuBLAS time is under 25 us (short_sizes.py), or those SIZES lists, in the checkout's results/ (the file comes
# back under $OUT), with PORTFOLIO=1 races its portfolio grid again, then runs the held-out
# bench sets named in HELDOUT ("set:precision[:c16] ...").
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
: "${OUT:=/tmp/out}"; mkdir -p "$OUT"
B=.device-build; T0=$SECONDS
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$name" in *H200*) slug=nvidia-h200 ;; *H100*) slug=nvidia-h100-80gb-hbm3 ;; *) slug=unknown ;; esac
echo "$name ($slug)"; date -u +%FT%TZ
sizes=${SIZES:-$(python3 scripts/spikes/graphs/short_sizes.py results/$slug.json ${BOUND_US:-25})}
echo "re-tuning $(echo "$sizes" | tr ',' '\n' | wc -l) problems"
timeout ${TUNE_LIMIT:-300} $B/tuner/gemm-tune --results-dir results --sizes "$sizes" --time-budget ${BUDGET:-4} > $OUT/retune.log 2>&1
echo "retune rc $? at $((SECONDS - T0)) s"
cp results/$slug.json $OUT/
if [ -n "${PORTFOLIO:-}" ]; then  # the grid for untuned calls, every point raced again
  timeout ${PORTFOLIO_LIMIT:-200} $B/tuner/gemm-tune portfolio --results-dir results --refresh > $OUT/portfolio.log 2>&1
  echo "portfolio rc $? at $((SECONDS - T0)) s"; tail -3 $OUT/portfolio.log
  cp results/portfolio-$slug.json $OUT/
fi
for run in ${HELDOUT:-}; do
  IFS=: read -r set precision c16 <<< "$run"
  left=$(( ${LIMIT:-570} - (SECONDS - T0) )); [ $left -gt 30 ] || break
  tag=$set-$precision${c16:+-c16}
  timeout $left $B/runtime/gemmtune-heldout --results results --only $set --precision $precision ${c16:+--c16} \
    -o $OUT/heldout-$tag.json > $OUT/heldout-$tag.log 2>&1
  echo "heldout $tag rc $? at $((SECONDS - T0)) s"; grep -E "geometric mean|copy bandwidth" $OUT/heldout-$tag.log
done
