#!/usr/bin/env bash
# 16-bit C, first measurement (session 33): the tuner's and the runtime's GPU tests on the new build,
# then c16 problems tuned from the shipped results (bf16 decode rows in nt, the layout of
# torch's linear, and the benchmark shapes in bf16 and fp16), then the decode, held-out and tuned sets through
# the library against cublasGemmEx with a 16-bit C. Any GPU; the results files the tune changed come
# back. Env: TUNE_LIMIT (s, decode), BIG_LIMIT (s, the benchmark shapes), SKIP_TESTS=1.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout 120 $B/tests/gpu_tests --gtest_filter='Isolation.*:Resume.*:WarmStart.*' --gtest_brief=1 > $OUT/gpu_tests.log 2>&1
  echo "tuner gpu tests rc $? at $((SECONDS - T0)) s"; grep -E "PASSED|FAILED" $OUT/gpu_tests.log | head
  timeout 120 $B/tests/runtime_gpu_tests --gtest_brief=1 > $OUT/runtime_gpu_tests.log 2>&1
  echo "runtime gpu tests rc $? at $((SECONDS - T0)) s"; grep -E "PASSED|FAILED" $OUT/runtime_gpu_tests.log | head
fi
R=/tmp/R; rm -rf $R; cp -r results $R
SIZES=""
for nk in 4096x4096 11008x4096 4096x11008 8192x8192 28672x8192 8192x28672; do
  for m in 1 4 8 16 32; do SIZES=$SIZES${SIZES:+,}${m}x$nk:nt:bf16:c16; done; done
timeout ${TUNE_LIMIT:-200} $B/tuner/gemm-tune --gpu auto --sizes $SIZES --time-budget 3 --results-dir $R > $OUT/tune-decode.log 2>&1
echo "decode tune rc $? at $((SECONDS - T0)) s"
BIG=512:bf16:c16,1024:bf16:c16,4096:bf16:c16,64x4096x4096:bf16:c16,4096x4096x64:bf16:c16,4096x64x4096:bf16:c16
BIG=$BIG,512:fp16:c16,1024:fp16:c16,4096:fp16:c16
timeout ${BIG_LIMIT:-150} $B/tuner/gemm-tune --gpu auto --sizes $BIG --time-budget 10 --results-dir $R > $OUT/tune-big.log 2>&1
echo "big tune rc $? at $((SECONDS - T0)) s"
for f in $R/*.json; do cmp -s $f results/${f##*/} || cp $f $OUT/; done
timeout 150 $B/runtime/gemmtune-heldout --results $R --precision bf16 --c16 --only decode -o $OUT/decode-bf16-c16.json \
  > $OUT/decode.log 2>&1
echo "decode bench rc $? at $((SECONDS - T0)) s"
timeout ${HELDOUT_LIMIT:-150} $B/runtime/gemmtune-heldout --results $R --precision bf16 --c16 --only heldout,tuned \
  -o $OUT/heldout-bf16-c16.json > $OUT/tuned.log 2>&1
echo "held-out bench rc $? at $((SECONDS - T0)) s"
grep -E "shapes|copy" $OUT/decode.log | cut -c1-160; grep -E "shapes" $OUT/tuned.log | cut -c1-160
