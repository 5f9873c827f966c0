#!/usr/bin/env bash
# Session 44's second GPU call for the Python package (one H200; build-carry-python carried with
# site-old at 7c93c89, before this session's direct paths): its GPU tier and the torch tests on a
# GPU machine, the host-time A/B, then #46's benchmark over the shipped results (bench.json).
set -uo pipefail
T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
PY_FILES="test_gpu.py test_torch_op.py test_torch_calls.py" PY_TIMEOUT=150 \
  bash build-carry-python/device-python.sh pytest > $OUT/python.txt 2>&1
echo "pytest at $((SECONDS - T0)) s"; grep -E "passed|failed|error|rc=" $OUT/python.txt | tail -4
REPEATS=${REPEATS:-3} ROUNDS=${ROUNDS:-30} bash scripts/spikes/python-overhead/host_ab.sh
echo "host A/B at $((SECONDS - T0)) s"
left=$((570 - (SECONDS - T0)))
BENCH_ARGS="--rounds 8 --tune-seconds 4" BENCH_TIMEOUT=$left bash build-carry-python/device-python.sh bench > $OUT/bench.txt 2>&1
echo "bench at $((SECONDS - T0)) s"; tail -25 $OUT/bench.txt
date -u +%FT%TZ
