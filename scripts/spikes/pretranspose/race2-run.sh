#!/usr/bin/env bash
# Session 40's second device call (H200): the copy kernel with 64 x 64 tiles and 16-byte vectors
# (the first call's 32 x 32 scalar copy moved about 2.8 TB/s): the same races, the family's GPU
# tests, then compute-sanitizer's memcheck over the wgmma kernels and racecheck over the copy.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS; D=scripts/spikes/pretranspose
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
bash $D/race-run.sh  # the same races and tests (the 12:02 run had them inline, tests within 200 s)
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
for run in "memcheck kns=wgmma_" "racecheck kns=wgmma_transpose" "synccheck kns=wgmma_transpose"; do
  set -- $run
  left=$((560 - (SECONDS - T0))); [ $left -gt 20 ] || break
  timeout $left $CS --tool $1 --kernel-name $2 --error-exitcode 9 $B/tests/gpu_tests --gtest_brief=1 \
    --gtest_filter='Wgmma.PassesTheTunersCheck' > $OUT/cs-$1.log 2>&1
  echo "$1 rc $? at $((SECONDS - T0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|Error" $OUT/cs-$1.log | head -6
done
date -u +%FT%TZ
