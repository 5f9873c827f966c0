#!/usr/bin/env bash
# For the next session with an H100 (written 2026-11-29, not run): session 39's tensor-core changes
# (wgmma rings up to 12 stages, 64-row and 64-column tiles, the next grid launched during the last
# tiles), session 40's K-major copies for tf32 and session 41's pingpong spaces (bf16, fp16, tf32),
# all measured on the H200 only. Re-tunes, into the shipped H100 results, bf16 and fp16 over #45's
# 19 shapes (the 11 benchmark shapes and 8 LLM projections) and tf32 over the 11, then measures what
# the library delivers in bf16 and fp16 over them (#45: 1.05, none below 0.99). One device call over a
# carried .device-build (after scripts/h100-session38-retune.sh, or instead of it); copy the H100's
# results file back from $OUT/results to ship it.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
mkdir -p "$OUT/results" && cp results/nvidia-h100-80gb-hbm3.json "$OUT/results/"
source scripts/spikes/issue45-retune.sh
RETUNE_BUDGET=5
retune bf16 $BENCH,$LLM 140; retune fp16 $BENCH,$LLM 140; retune tf32 $BENCH 140
library bf16 tuned,llm 80; library fp16 tuned,llm 80
date -u +%FT%TZ
bring_back nvidia-h100-80gb-hbm3.json
