#!/usr/bin/env bash
# H100, after the race moved to graph replays: the portfolio grid raced again (the file comes back
# under $OUT), the held-out bench's default sets in fp32 over it, and the Python benchmark (#46).
# Carry .device-build and build-carry-python.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
: "${OUT:=/tmp/out}"; mkdir -p "$OUT"
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout ${PORTFOLIO_LIMIT:-220} $B/tuner/gemm-tune portfolio --results-dir results --refresh > $OUT/portfolio.log 2>&1
echo "portfolio rc $? at $((SECONDS - T0)) s"; tail -2 $OUT/portfolio.log; grep -c "not measured" $OUT/portfolio.log
cp results/portfolio-nvidia-h100-80gb-hbm3.json $OUT/
timeout 150 $B/runtime/gemmtune-heldout --results results -o $OUT/heldout-fp32.json > $OUT/heldout-fp32.log 2>&1
echo "heldout rc $? at $((SECONDS - T0)) s"; grep -E "geometric mean" $OUT/heldout-fp32.log
left=$(( 570 - (SECONDS - T0) ))
BENCH_ARGS="--rounds 6 --tune-seconds 4" BENCH_TIMEOUT=$left bash build-carry-python/device-python.sh bench > $OUT/python.txt 2>&1
echo "python bench at $((SECONDS - T0)) s"; grep -E "^mlp_inference" $OUT/python.txt | grep eager
