#!/usr/bin/env bash
# Session 40's fifth and sixth device calls (H200; the fifth hung: a consumer waited on full barriers
# more than one phase ahead, fixed by the order barrier): the wgmma consumers taking whole tiles in turn (pingpong),
# so that one's main loop overlaps the other's epilogue, raced exhaustively against cuBLAS BF16 at
# 2048, 4096, 6144 and 8192 (nn), beside the same race of the consumers sharing each tile; then the
# family's GPU tests (pingpong configs among them).
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS; D=scripts/spikes/pingpong
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
source scripts/spikes/exhaustive-race.sh
SIZES=${SIZES:-4096:bf16,2048:bf16,6144:bf16,8192:bf16}
race pingpong wgmma-pingpong-bf16.json $SIZES
race shared wgmma-shared-bf16.json $SIZES
timeout ${TEST_TIMEOUT:-250} $B/tests/gpu_tests --gtest_brief=1 \
  --gtest_filter='Wgmma.EveryPrecisionAndLayoutAtEdgeSizes:Wgmma.PassesTheTunersCheck' > $OUT/tests.log 2>&1
echo "tests rc $? at $((SECONDS - T0)) s"; grep -E "PASSED|FAILED|tests ran|Failure" $OUT/tests.log | head -20
date -u +%FT%TZ
