#!/usr/bin/env bash
# device call 5: bf16/fp16 wgmma with MN-major operands (transpose immediates): checked, then timed
# per layout against cuBLAS in the same precision.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 300 $B/tests/gpu_tests --gtest_brief=1 --gtest_filter='Wgmma.*' > $OUT/gpu.log 2>&1; echo "gpu_tests rc $?"
grep -E "FAILED|PASSED|Failure" $OUT/gpu.log | head -10
grep -E -A3 "Failure" $OUT/gpu.log | head -30
for p in bf16 fp16; do
  sizes=4096:nt:bf16,4096:bf16,4096:tn:bf16,4096:tt:bf16,8192:bf16,8192:nt:bf16
  [ $p = fp16 ] && sizes=4096:fp16,8192:tn:fp16
  timeout 150 $B/tuner/gemm-tune --gpu auto --sizes $sizes --space configs/wgmma-$p.json --time-budget 8 \
    --results-dir $OUT/r > $OUT/tune-$p.log 2>&1; echo "tune $p rc $?"
  grep -A8 "^problem" $OUT/tune-$p.log
done
