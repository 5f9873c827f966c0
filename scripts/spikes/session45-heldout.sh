#!/usr/bin/env bash
# Session 45's first GPU call (one H200, .device-build carried): what the library delivers with the
# shipped results after session 44 added the H200's own FP32 decode entries (the nearest-tuned-problem
# rule may now pick them for held-out skinny shapes) and moved tf32 4096x64x4096 to a split-K kernel.
# The FP32 and tf32 tuned and held-out sets, then bf16 and fp16 (unchanged since session 41's run).
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
source scripts/spikes/issue45-retune.sh
shipped_results  # what the library installs
library fp32 tuned,heldout 200
library tf32 tuned,heldout 150
library bf16 tuned,heldout 100
library fp16 tuned,heldout 100
date -u +%FT%TZ
rm -rf "$OUT/results"
