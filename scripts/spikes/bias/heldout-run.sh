#!/usr/bin/env bash
# Session 48 (#46): the FP32 tuned and held-out sets through the library with the shipped results,
# after sgemm's atomic split-K took the bias into its first slice (its no-bias path's code changed
# too); against session 45's run of the same (results/heldout-nvidia-h200.json, 2026-11-29 22:16).
# Carry .device-build. Logs and heldout-fp32.json under $OUT.
set -uo pipefail
: "${OUT:=/tmp/out}"; mkdir -p "$OUT"
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
source scripts/spikes/issue45-retune.sh
shipped_results
library fp32 tuned,heldout "${SECONDS_LIMIT:-230}"
rm -rf "$OUT/results"
