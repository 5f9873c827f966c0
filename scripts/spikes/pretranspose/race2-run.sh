#!/usr/bin/env bash
# Session 40's second device call (H200): the copy kernel with 64 x 64 tiles and 16-byte vectors
# (the first call's 32 x 32 scalar copy moved about 2.8 TB/s): the same races, the family's GPU
# tests, then compute-sanitizer's memcheck over the wgmma kernels and racecheck over the copy.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS; D=scripts/spikes/pretranspose
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
race() {  # name space sizes
  timeout ${RACE_TIMEOUT:-200} $B/tuner/gemm-tune --results-dir $OUT/$1 --space $D/$2 --strategy exhaustive \
    --sizes "$3" --no-warm-start -j16 --top 4 > $OUT/$1.log 2>&1
  echo "$1 rc $? at $((SECONDS - T0)) s"; grep -A10 "^problem" $OUT/$1.log | cut -c1-150
}
race pt wgmma-pretranspose-tf32.json 4096:tf32,8192:tf32,2048:tf32,3000:tf32,4096:tn:tf32,4096:tt:tf32
race nt wgmma-nt-tf32.json 4096:nt:tf32,8192:nt:tf32,2048:nt:tf32
timeout 200 $B/tests/gpu_tests --gtest_brief=1 \
  --gtest_filter='Wgmma.EveryPrecisionAndLayoutAtEdgeSizes:Wgmma.PassesTheTunersCheck' > $OUT/tests.log 2>&1
echo "tests rc $? at $((SECONDS - T0)) s"; grep -E "PASSED|FAILED|tests ran|Failure" $OUT/tests.log | head -20
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
for run in "memcheck kns=wgmma_" "racecheck kns=wgmma_transpose" "synccheck kns=wgmma_transpose"; do
  set -- $run
  left=$((560 - (SECONDS - T0))); [ $left -gt 20 ] || break
  timeout $left $CS --tool $1 --kernel-name $2 --error-exitcode 9 $B/tests/gpu_tests --gtest_brief=1 \
    --gtest_filter='Wgmma.PassesTheTunersCheck' > $OUT/cs-$1.log 2>&1
  echo "$1 rc $? at $((SECONDS - T0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|Error" $OUT/cs-$1.log | head -6
done
date -u +%FT%TZ
