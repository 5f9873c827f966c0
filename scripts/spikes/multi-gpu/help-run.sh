#!/usr/bin/env bash
# Issue #47, GPUs with no problem left measure for the others (tuner/commands/help_desk.hpp), on a
# 2-GPU host: the GPU tests in TESTS (default the multi-GPU ones); with MEASURE=1, measure.sh at 1
# and 2 GPUs; then over a warm cache (filled by an untimed run) the binary before the change and
# this one in turn, ROUNDS times (default 3): the eight problems on both GPUs, and each of
# ONE_SIZES (default 2048) alone on one GPU and on both. Logs go to $OUT/help.tgz, a line a run
# to stdout.
#   B=.device-build BEFORE=gemm-tune-before [TESTS=...] [MEASURE=1] [ROUNDS=3] [ONE_SIZES="2048 4096"] help-run.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${B:=.device-build}" "${BEFORE:?the gemm-tune before the change}" "${OUT:=/tmp/help-out}"
after=$B/tuner/gemm-tune
logs=$(mktemp -d)
EIGHT=512,1000,1024,2048,3000,4096,64x4096x4096,4096x4096x64
date -u +%FT%TZ
$B/tests/gpu_tests --gtest_filter="${TESTS:-MultiGpu.*}" > "$logs/gpu_tests.log" 2>&1
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" "$logs/gpu_tests.log"
if [ "${MEASURE:-0}" = 1 ]; then
  OUT=$logs/measure GPUS="1 2" bash "$here/measure.sh" "$after"
  cat "$logs/measure/summary.txt"
fi
cache=$(mktemp -d)
one=$(echo ${ONE_SIZES:-2048} | tr ' ' ',')  # session 42's run split them apart: round 1 ran cold
GEMMTUNE_CACHE_DIR=$cache "$after" --gpu all --sizes "$EIGHT,$one" --budget 120 --seed 1 \
  --results-dir "$(mktemp -d)" > "$logs/fill.log" 2>&1
run() {  # name exe gpu sizes
  local t0; t0=$(date +%s.%N)
  GEMMTUNE_CACHE_DIR=$cache "$2" --gpu "$3" --sizes "$4" --budget 120 --seed 1 --results-dir "$(mktemp -d)" \
    --log-level debug > "$logs/$1.log" 2>&1
  printf "%-28s rc %d %6.2f s  %s\n" "$1" $? "$(python3 -c "import time; print(time.time() - $t0)")" \
    "$(grep -o 'helping the others [0-9.]* s, [0-9]* evaluations' "$logs/$1.log" | tr '\n' ' ')"
}
for round in $(seq "${ROUNDS:-3}"); do
  run "eight-before-$round" "$BEFORE" all $EIGHT
  run "eight-after-$round" "$after" all $EIGHT
  for size in ${ONE_SIZES:-2048}; do
    for g in 0 all; do
      run "$size-before-$g-$round" "$BEFORE" $g $size
      run "$size-after-$g-$round" "$after" $g $size
    done
  done
done
for f in "$logs"/eight-*.log; do echo "== $(basename "$f")"; sed -n '/^problem /,/^results:/p' "$f" | cut -c1-17,70-140; done > "$logs/winners.txt"
tar czf "$OUT/help.tgz" -C "$logs" . && rm -rf "$logs" "$cache"
