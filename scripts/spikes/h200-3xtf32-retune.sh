#!/usr/bin/env bash
# Session 43 (2026-11-29): 3xtf32 on K-major copies joined the wgmma space in session 42, measured in
# the race but not re-tuned into the shipped H200 results. Re-tunes the 11 benchmark shapes in
# 3xtf32 (nn, as shipped) into a copy of results/nvidia-h200.json on every GPU of the host, then
# measures what the library delivers in 3xtf32 over the tuned and held-out sets (cuBLAS SGEMM in the
# same run, normwise errors of both), with every shipped results file. One device call over a carried
# .device-build; copy $OUT/nvidia-h200.json back to ship it.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
# Every shipped file, as users have them: the library also runs another sm_90 GPU's winners where the
# H200 has none (4096 nt from the H100's), which a directory of the H200's file alone would not show.
mkdir -p "$OUT/results" && cp results/*.json "$OUT/results/"
source scripts/spikes/issue45-retune.sh
RETUNE_GPU=${RETUNE_GPU:-all}
retune 3xtf32 $BENCH ${RETUNE_SECONDS:-200}
library 3xtf32 tuned,heldout ${LIBRARY_SECONDS:-150}
date -u +%FT%TZ
find "$OUT/results" -maxdepth 1 -name "*.json" ! -name nvidia-h200.json -delete  # copies, unchanged
bring_back nvidia-h200.json
