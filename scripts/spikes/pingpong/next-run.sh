#!/usr/bin/env bash
# For the next session's first device call (H200 or H100): the wgmma GPU tests with the pingpong
# configs (their edge-size test has not completed on a GPU yet; session 40 fixed the hang it met),
# then pingpong against the shared-tile kernel at #45's sizes in bf16 and fp16. If the tests pass and
# pingpong keeps its lead at 8192, add "pingpong": [false, true] to configs/wgmma-bf16.json and
# wgmma-fp16.json and re-tune (scripts/spikes/h100-session39-retune.sh on an H100).
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS; D=scripts/spikes/pingpong
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 400 $B/tests/gpu_tests --gtest_filter='Wgmma.*' > $OUT/wgmma_tests.log 2>&1
echo "Wgmma.* rc $? at $((SECONDS - T0)) s"; grep -E "^\[  FAILED|tests ran|PASSED" $OUT/wgmma_tests.log | head
source scripts/spikes/exhaustive-race.sh
for p in bf16 fp16; do
  sizes=$(for s in 4096 6144 8192; do printf "%s:%s," $s $p; done)
  RACE_TIMEOUT=60 race pingpong-$p wgmma-pingpong-$p.json "${sizes%,}"
done
RACE_TIMEOUT=60 race shared-bf16 wgmma-shared-bf16.json 4096:bf16,6144:bf16,8192:bf16  # the same run's comparison
date -u +%FT%TZ
