#!/usr/bin/env bash
# Issue #47, GPUs with no problem left measure for the others (tuner/commands/help_desk.hpp), on a
# 2-GPU host: the multi-GPU GPU tests; measure.sh at 1 and 2 GPUs, with the warm 2-GPU run
# repeated by the binary before the change and this one in turn; then one problem on 1 and 2 GPUs
# over a warm cache, each binary. Everything goes to $OUT/help.tgz, the summaries to stdout.
#   B=.device-build BEFORE=gemm-tune-before scripts/spikes/multi-gpu/help-run.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${B:=.device-build}" "${BEFORE:?the gemm-tune before the change}" "${OUT:=/tmp/help-out}"
logs=$(mktemp -d)
date -u +%FT%TZ
$B/tests/gpu_tests --gtest_filter='MultiGpu.*' > "$logs/gpu_tests.log" 2>&1
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" "$logs/gpu_tests.log"
OUT=$logs/measure GPUS="1 2" BEFORE=$BEFORE bash "$here/measure.sh" "$B/tuner/gemm-tune"
cat "$logs/measure/summary.txt"
grep -h "helping the others" "$logs"/measure/*.log | cut -c1-200
# One problem: does the second GPU shorten it? Warm cache (filled by the first, untimed run).
cache=$(mktemp -d)
GEMMTUNE_CACHE_DIR=$cache "$B/tuner/gemm-tune" --gpu 0 --sizes 2048 --budget 120 --seed 1 --results-dir "$(mktemp -d)" > /dev/null 2>&1
for round in a b; do
  for exe in "$BEFORE" "$B/tuner/gemm-tune"; do
    for g in 0 0,1; do
      name="one-$(basename "$exe")-${g/,/+}-$round"
      t0=$(date +%s.%N)
      GEMMTUNE_CACHE_DIR=$cache "$exe" --gpu "$g" --sizes 2048 --budget 120 --seed 1 --results-dir "$(mktemp -d)" \
        --log-level debug > "$logs/$name.log" 2>&1
      printf "%-40s rc %d %.2f s %s\n" "$name" $? "$(python3 -c "import time; print(time.time() - $t0)")" \
        "$(grep -A1 '^problem' "$logs/$name.log" | tail -1 | cut -c1-100)"
    done
  done
done
tar czf "$OUT/help.tgz" -C "$logs" . && rm -rf "$logs" "$cache"
