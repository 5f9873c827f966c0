#!/usr/bin/env bash
# Session 46 (one H200; .device-build carried): K halved in a cluster pair (cluster_k 2) raced
# exhaustively beside split-K and unsplit tiles (wgmma-pair-bf16.json) at #44's skinny shapes, FP32 C
# and 16-bit C; then the wgmma correctness tests, which now hold pairs.
set -uo pipefail
B=.device-build; D=scripts/spikes/skinny-tc; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
export GEMMTUNE_CACHE_DIR=/tmp/gc
source scripts/spikes/exhaustive-race.sh
for size in ${SIZES:-64x4096x4096:bf16 4096x64x4096:bf16}; do
  RACE_TIMEOUT=${RACE_TIMEOUT:-100} race "pair-${size//:/-}" wgmma-pair-bf16.json "$size"
  python3 $D/top.py $OUT/pair-${size//:/-} 12
done
if [ "${TESTS:-1}" = 1 ]; then
  timeout ${TEST_TIMEOUT:-280} $B/tests/gpu_tests --gtest_filter="${FILTER:-Wgmma.*}" > $OUT/gpu_tests_wgmma.log 2>&1
  echo "tests rc $? at $((SECONDS - T0)) s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[       OK|tests ran|Failure" $OUT/gpu_tests_wgmma.log | head -20
fi
tar czf $OUT/bring_back.tgz -C $OUT --exclude=bring_back.tgz . 2>/dev/null
date -u +%FT%TZ
