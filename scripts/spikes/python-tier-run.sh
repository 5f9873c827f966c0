#!/usr/bin/env bash
# Session 32 on the H100: the Python package's GPU tier and #46's benchmark (staged by
# scripts/stage-python-device.sh, build-carry-python carried), the tuner's and the runtime's GPU tests,
# then the 16-bit small shapes re-tune.
set -uo pipefail
T0=$SECONDS
BENCH_ARGS="--rounds 6 --tune-seconds 4" BENCH_TIMEOUT=150 PY_TIMEOUT=100 \
  bash build-carry-python/device-python.sh pytest,bench > $OUT/python.txt 2>&1
echo "python at $((SECONDS - T0)) s"; grep -v "^==" $OUT/python.txt | tail -45
bash scripts/spikes/tier-tuner.sh
PER_PRECISION=${PER_PRECISION:-60} bash scripts/spikes/retune-16bit-run.sh
echo "all at $((SECONDS - T0)) s"
