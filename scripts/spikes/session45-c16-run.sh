#!/usr/bin/env bash
# Session 45's last tensor-core call (one H200; .device-build with tuner/gemm-tune-old carried): the
# 16-byte c16 stores A/B at four more shapes, then the H200's c16 entries re-tuned with them and the
# library measured over the benchmark and LLM sets (h200-c16-retune.sh, without its before-run).
set -uo pipefail
T0=$SECONDS
SKIP_TESTS=1 SIZES=4096x4096x64,1024,2048,4096 bash scripts/spikes/c16/epilogue-ab-run.sh 2>&1 | grep -v "^\[" | tail -60
mkdir -p $OUT/ab && mv $OUT/race-*.log $OUT/ab/ && rm -rf $OUT/old $OUT/new
echo "A/B done at $((SECONDS - T0)) s"
MEASURE_BEFORE=0 TUNE_LIMIT=${TUNE_LIMIT:-240} bash scripts/spikes/h200-c16-retune.sh
