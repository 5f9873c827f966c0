#!/usr/bin/env bash
# Session 38's second device call (H200), over a carried .device-build: the runtime gpu tests, then
# a fresh user's 3xtf32 search over the 11 benchmark shapes (empty results, cold compile cache; the
# block_k-16 configs now in the space), the library over those results (gemmtune-heldout --only
# tuned), and with the time left the decode-nt profile (scripts/spikes/decode-nt/profile.sh).
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc-fresh
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 100 $B/tests/runtime_gpu_tests > $OUT/runtime_gpu_tests.log 2>&1
echo "runtime_gpu_tests rc $? at $((SECONDS - T0)) s"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|^\[  FAILED" $OUT/runtime_gpu_tests.log
mkdir -p $OUT/fresh
timeout 330 $B/tuner/gemm-tune --gpu auto --precision 3xtf32 --results-dir $OUT/fresh --time-budget ${TIME_BUDGET:-25} \
  --sizes 512,1000,1024,2048,3000,4095,4096,8192,64x4096x4096,4096x4096x64,4096x64x4096 > $OUT/fresh.log 2>&1
echo "fresh 3xtf32 tune rc $? at $((SECONDS - T0)) s"; grep -A14 "^problem" $OUT/fresh.log
timeout 120 $B/runtime/gemmtune-heldout --results $OUT/fresh --precision 3xtf32 --only tuned \
  -o $OUT/heldout-3xtf32.json > $OUT/heldout.log 2>&1
echo "heldout rc $? at $((SECONDS - T0)) s"; tail -16 $OUT/heldout.log | cut -c1-170
if [ $((SECONDS - T0)) -lt 380 ]; then bash scripts/spikes/decode-nt/profile.sh; fi
date -u +%FT%TZ
