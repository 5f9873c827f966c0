#!/usr/bin/env bash
# For a later session's GPU (written 2026-11-29, session 41, not run): does 3xtf32 outside nt gain
# from K-major copies as tf32 did? Its nn kernel stages B through a third tile a stage (3 stages
# fit where nt holds 4) and ran 7-8% behind nt on the H100 (1.79-2.01x SGEMM against 1.94-2.18x,
# 2048 to 8192). First the wgmma GPU tests (their 3xtf32 configs include the copies now), then an
# exhaustive race of the kernels with and without copies in nn and tn, and nt beside them, against
# cuBLAS SGEMM. If the copies win, add "pretranspose": [false, true] to configs/wgmma-3xtf32.json.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS; D=scripts/spikes/pretranspose
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 400 $B/tests/gpu_tests --gtest_filter='Wgmma.EveryPrecisionAndLayoutAtEdgeSizes:Wgmma.PassesTheTunersCheck' \
  > $OUT/wgmma_tests.log 2>&1
echo "Wgmma tests rc $? at $((SECONDS - T0)) s"; grep -E "^\[  FAILED|tests ran|PASSED" $OUT/wgmma_tests.log | head
source scripts/spikes/exhaustive-race.sh
RACE_TIMEOUT=120 race three-copies wgmma-3xtf32-pt.json \
  2048:3xtf32,4096:3xtf32,8192:3xtf32,4096:tn:3xtf32,4096:nt:3xtf32,8192:nt:3xtf32
date -u +%FT%TZ
