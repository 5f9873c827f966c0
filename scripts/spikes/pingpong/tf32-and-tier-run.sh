#!/usr/bin/env bash
# Session 41 (H200), after configs/wgmma-pingpong-tf32.json joined the built-in spaces:
# 1. gpu_tests but Wgmma.* (which passed at 13:59 on the same kernels): the tuner's GPU tests after
#    the search's tile-shape change;
# 2. a fresh user's tf32 search of 4096 and 8192 (empty results, cold cache);
# 3. tf32 re-tuned over the shipped H200 tf32 problems, then the library over tuned and held-out tf32.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 230 $B/tests/gpu_tests --gtest_filter='-Wgmma.*' > $OUT/gpu_tests.log 2>&1
echo "gpu_tests -Wgmma.* rc $? at $((SECONDS - T0)) s"; grep -E "^\[  FAILED|tests ran|PASSED|SKIPPED" $OUT/gpu_tests.log | head
cache=$(mktemp -d); res=$(mktemp -d)
GEMMTUNE_CACHE_DIR=$cache timeout 80 $B/tuner/gemm-tune --gpu auto --sizes 4096,8192 --precision tf32 \
  --results-dir $res > $OUT/fresh-tf32.log 2>&1
echo "fresh tf32 rc $? at $((SECONDS - T0)) s"; grep -A3 "^problem" $OUT/fresh-tf32.log | cut -c1-130
mkdir -p "$OUT/results" && cp results/nvidia-h200.json "$OUT/results/"
source scripts/spikes/issue45-retune.sh
retune tf32 512,1000,1024,2048,3000,4095,4096,8192,64x4096x4096,4096x64x4096,4096x4096x64,2048:tn,4096:tn,8192:tn,4096:tt 110
library tf32 heldout,tuned 100
date -u +%FT%TZ
bring_back nvidia-h200.json
