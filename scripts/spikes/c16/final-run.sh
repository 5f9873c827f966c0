#!/usr/bin/env bash
# 16-bit C after cuBLAS's reductions in C's type were turned off (session 33): the Python GPU tier
# and the runtime's GPU tests, then every c16 entry re-tuned against that cuBLAS, then the tuned
# and decode sets through the library. Carry .device-build and build-carry-python.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
PY_FILES="test_gpu.py test_torch_op.py test_torch_calls.py" PY_TIMEOUT=150 OUT=$OUT \
  bash build-carry-python/device-python.sh pytest | tail -3
timeout 100 $B/tests/runtime_gpu_tests --gtest_brief=1 > $OUT/runtime_gpu_tests.log 2>&1
echo "runtime gpu tests rc $? at $((SECONDS - T0)) s"; grep -E "PASSED|FAILED" $OUT/runtime_gpu_tests.log | head -5
R=/tmp/R; rm -rf $R; cp -r results $R
SIZES=""
for nk in 4096x4096 11008x4096 4096x11008 8192x8192 28672x8192 8192x28672; do
  for m in 1 4 8 16 32; do SIZES=$SIZES${SIZES:+,}${m}x$nk:nt:bf16:c16; done; done
SIZES=$SIZES,512:bf16:c16,1024:bf16:c16,4096:bf16:c16,64x4096x4096:bf16:c16,4096x4096x64:bf16:c16,4096x64x4096:bf16:c16
SIZES=$SIZES,512:fp16:c16,1024:fp16:c16,4096:fp16:c16
timeout ${TUNE_LIMIT:-200} $B/tuner/gemm-tune --gpu auto --sizes $SIZES --time-budget 3 --results-dir $R > $OUT/tune.log 2>&1
echo "tune rc $? at $((SECONDS - T0)) s"
for f in $R/*.json; do cmp -s $f results/${f##*/} || cp $f $OUT/; done
timeout 60 $B/runtime/gemmtune-heldout --results $R --precision bf16 --c16 --only tuned -o $OUT/tuned-bf16-c16.json \
  > $OUT/tuned.log 2>&1
echo "tuned bench rc $? at $((SECONDS - T0)) s"
timeout ${DECODE_LIMIT:-200} $B/runtime/gemmtune-heldout --results $R --precision bf16 --c16 --only decode \
  -o $OUT/decode-bf16-c16.json > $OUT/decode.log 2>&1
echo "decode bench rc $? at $((SECONDS - T0)) s"
grep -E "shapes|copy" $OUT/tuned.log $OUT/decode.log | cut -c1-170
