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
BENCH=512,1000,1024,2048,3000,4095,4096,8192,64x4096x4096,4096x64x4096,4096x4096x64
LLM=512x11008x4096,512x4096x11008,512x28672x8192,512x8192x28672,4096x11008x4096,4096x4096x11008,4096x28672x8192,4096x8192x28672
for p in bf16 fp16; do
  timeout 120 $B/tuner/gemm-tune --gpu auto --sizes "$BENCH,$LLM" --precision $p --time-budget 4 -j16 \
    --results-dir "$OUT/results" > "$OUT/retune-$p.log" 2>&1
  echo "retune $p rc $? at $((SECONDS - T0)) s"; grep -A20 "^problem" "$OUT/retune-$p.log" | cut -c1-110
done
for p in bf16 fp16; do
  timeout 60 $B/runtime/gemmtune-heldout --results "$OUT/results" --precision $p --only tuned,llm \
    -o "$OUT/heldout-$p.json" > "$OUT/heldout-$p.log" 2>&1
  echo "heldout $p rc $? at $((SECONDS - T0)) s"; grep -E "geometric mean" "$OUT/heldout-$p.log"
done
date -u +%FT%TZ
rm -rf "$OUT/results/"*.lock "$OUT/results/logs"
mv "$OUT/results/nvidia-h200.json" "$OUT/nvidia-h200.json"
cd "$OUT" && tar czf logs.tgz --exclude=logs.tgz --exclude=nvidia-h200.json . && find . -mindepth 1 \
  ! -name logs.tgz ! -name nvidia-h200.json -delete
