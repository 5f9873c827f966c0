#!/usr/bin/env bash
# Session 43 (2026-11-29): 3xtf32 on K-major copies joined the wgmma space in session 42, and split-K
# wgmma grids stopped launching the next grid early (kernel-notes.md, session 43). Re-tunes the 11
# benchmark shapes in 3xtf32 (nn, as shipped) into a copy of results/$RESULTS (default
# nvidia-h200.json; nvidia-h100-80gb-hbm3.json on an H100, not run there yet) on every GPU of the
# host, then measures what the library delivers in 3xtf32 over the tuned and held-out sets (cuBLAS
# SGEMM in the same run, normwise errors of both), with every shipped results file. One device call
# over a carried .device-build; copy $OUT/$RESULTS back to ship it. Ran on the H200 at 19:07 (before
# the split-K change) and 19:30.
#   [RESULTS=nvidia-h100-80gb-hbm3.json] [RETUNE_SECONDS=200] [LIBRARY_SECONDS=150] 3xtf32-retune.sh
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
: "${RESULTS:=nvidia-h200.json}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
# Every shipped file, as users have them: the library also runs another sm_90 GPU's winners where the
# GPU has none (the H200's 4096 nt from the H100's), which a directory of its file alone would not show.
mkdir -p "$OUT/results" && cp results/*.json "$OUT/results/"
source scripts/spikes/issue45-retune.sh
RETUNE_GPU=${RETUNE_GPU:-all}
retune 3xtf32 $BENCH ${RETUNE_SECONDS:-200}
library 3xtf32 tuned,heldout ${LIBRARY_SECONDS:-150}
date -u +%FT%TZ
find "$OUT/results" -maxdepth 1 -name "*.json" ! -name "$RESULTS" -delete  # copies, unchanged
bring_back "$RESULTS"
