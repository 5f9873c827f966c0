#!/usr/bin/env bash
# Session 38's third device call (H200), over a carried .device-build: the runtime gpu tests (the
# misalignment rule now counts the race's own row alignment), the library's 3xtf32 over the shipped
# results (held-out and tuned sets; the H200's 3xtf32 entries come from this session's fresh search),
# then the decode-nt Nsight Compute profile with its kernel-name filter fixed.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 100 $B/tests/runtime_gpu_tests > $OUT/runtime_gpu_tests.log 2>&1
echo "runtime_gpu_tests rc $? at $((SECONDS - T0)) s"
grep -E "tests ran|^\[  FAILED|^\[  PASSED" $OUT/runtime_gpu_tests.log
timeout 240 $B/runtime/gemmtune-heldout --results results --precision 3xtf32 \
  -o $OUT/heldout-3xtf32.json > $OUT/heldout.log 2>&1
echo "heldout rc $? at $((SECONDS - T0)) s"; grep -E "geometric mean" $OUT/heldout.log
grep -E "^tuned" $OUT/heldout.log | cut -c1-150
if [ $((SECONDS - T0)) -lt 390 ]; then bash scripts/spikes/decode-nt/profile.sh; fi
date -u +%FT%TZ
