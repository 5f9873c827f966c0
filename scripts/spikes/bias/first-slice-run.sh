#!/usr/bin/env bash
# Session 48 (#46): sgemm's atomic split-K adds the bias in its first slice's pass over the tile (no
# kernel over C before it). PART=kernels: every kernel family's GPU tests (the last full run was
# before session 47's last splitk_reduce change). PART=python: Wgmma's tests, the runtime's GPU
# tests, the Python GPU tier and the torch benchmark. Carry .device-build and build-carry-python.
# Logs under $OUT.
set -uo pipefail
: "${OUT:=/tmp/out}"; mkdir -p "$OUT"
here=$(dirname "$0")
case ${PART:?PART=kernels or python} in
  kernels)
    FILTER='GemmCorrectness.*:TensorCores.*:SkinnyStream.*' TIMEOUT=560 bash "$here/gpu-tests-run.sh" ;;
  python)
    FILTER='Wgmma.*' TIMEOUT=260 bash "$here/gpu-tests-run.sh"
    RT_TIMEOUT=90 PY_TIMEOUT=140 BENCH_TIMEOUT=200 PY_FILES="test_gpu.py test_torch_calls.py test_torch_op.py" \
      BENCH_ARGS="--rounds 6 --tune-seconds 4" \
      bash build-carry-python/device-python.sh runtime,pytest,bench > "$OUT/python-run.log" 2>&1
    tail -45 "$OUT/python-run.log" ;;
esac
