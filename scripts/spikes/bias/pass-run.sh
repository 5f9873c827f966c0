#!/usr/bin/env bash
# Session 47 (#46): after splitk_reduce walks rows per thread (one wave for C = beta * C + bias):
# the kernel tests that use it (split-K reductions, atomic split-K's first pass, the bias), the
# runtime's GPU tests, and the torch benchmark (its "library" columns run the bias pass before
# cuBLAS). Carry .device-build and build-carry-python. Logs under $OUT.
set -uo pipefail
: "${OUT:=/tmp/out}"; mkdir -p "$OUT"
here=$(dirname "$0")
FILTER='GemmCorrectness.*:TensorCores.SixteenBitCEveryLayoutSplitAndBatch:Wgmma.SixteenBitC' TIMEOUT=220 \
  bash "$here/gpu-tests-run.sh"
RT_TIMEOUT=120 BENCH_TIMEOUT=200 BENCH_ARGS="--rounds 6 --tune-seconds 4" \
  bash build-carry-python/device-python.sh runtime,bench > "$OUT/python-run.log" 2>&1
tail -3 "$OUT/runtime.log"
