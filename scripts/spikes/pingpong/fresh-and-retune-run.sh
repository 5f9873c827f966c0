#!/usr/bin/env bash
# Session 41 (H200), after the pingpong tile became a tile shape of its own in the search:
# 1. a fresh user's bf16 search of 512,1024,4096,8192 (empty results, cold cache);
# 2. tf32 with consumers in turn raced exhaustively (nt, and nn on K-major copies) at 4096 and 8192;
# 3. bf16 and fp16 re-tuned over #45's 19 shapes into a copy of the shipped H200 results, then what
#    the library delivers over them. The device tool brings back few files: logs go into one tarball,
#    the results file beside it.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS; D=scripts/spikes/pingpong
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
cache=$(mktemp -d); res=$(mktemp -d)
GEMMTUNE_CACHE_DIR=$cache timeout 150 $B/tuner/gemm-tune --gpu auto --sizes 512,1024,4096,8192 --precision bf16 \
  --results-dir $res > $OUT/fresh-bf16.log 2>&1
echo "fresh bf16 rc $? at $((SECONDS - T0)) s"; grep -A5 "^problem" $OUT/fresh-bf16.log | cut -c1-130
source scripts/spikes/exhaustive-race.sh
RACE_TIMEOUT=90 race pingpong-tf32 wgmma-pingpong-tf32.json 4096:nt:tf32,8192:nt:tf32,4096:tf32,8192:tf32
mkdir -p "$OUT/results" && cp results/nvidia-h200.json "$OUT/results/"
source scripts/spikes/issue45-retune.sh
retune bf16 $BENCH,$LLM 120; retune fp16 $BENCH,$LLM 120
library bf16 tuned,llm 60; library fp16 tuned,llm 60
date -u +%FT%TZ
bring_back nvidia-h200.json
