#!/usr/bin/env bash
# Session 38's fourth device call (H200), over a carried .device-build: the gpu tier on the build
# whose transpose_b kernels read B in runs of 1 column, then the m = 32 nt race of transpose_b
# against copies that transpose B (sgemm-m32-bt.json, exhaustive) at three decode shapes.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 150 bash scripts/spikes/decode-nt/run.sh sgemm-m32-bt:32x28672x8192:nt,32x8192x28672:nt,32x4096x4096:nt
echo "race at $((SECONDS - T0)) s"
timeout $((560 - (SECONDS - T0))) $B/tests/gpu_tests > $OUT/gpu_tests.log 2>&1; echo "gpu_tests rc $? at $((SECONDS - T0)) s"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|^\[  FAILED" $OUT/gpu_tests.log; grep -E "^\[ RUN" $OUT/gpu_tests.log | tail -1
date -u +%FT%TZ
