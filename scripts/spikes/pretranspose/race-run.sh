#!/usr/bin/env bash
# Session 40's first device call (H200): tf32 outside nt as the nt kernel on K-major copies
# (pretranspose), raced exhaustively against cuBLAS TF32 at 2048, 3000, 4096, 8192 (nn) and 4096 in
# tn and tt; the same tiles in nt without copies (their difference is what the copies cost); then
# the GPU tests of the family, the copies among them.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS; D=scripts/spikes/pretranspose
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
source scripts/spikes/exhaustive-race.sh
race pt wgmma-pretranspose-tf32.json 4096:tf32,8192:tf32,2048:tf32,3000:tf32,4096:tn:tf32,4096:tt:tf32
race nt wgmma-nt-tf32.json 4096:nt:tf32,8192:nt:tf32,2048:nt:tf32
timeout 220 $B/tests/gpu_tests --gtest_brief=1 \
  --gtest_filter='Wgmma.EveryPrecisionAndLayoutAtEdgeSizes:Wgmma.PassesTheTunersCheck' > $OUT/tests.log 2>&1
echo "tests rc $? at $((SECONDS - T0)) s"; grep -E "PASSED|FAILED|tests ran|Failure" $OUT/tests.log | head -20
date -u +%FT%TZ
