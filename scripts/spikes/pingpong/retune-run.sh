#!/usr/bin/env bash
# Session 41 (H200): the pingpong spaces are built in (configs/wgmma-pingpong-{bf16,fp16}.json).
# 1. a fresh user's bf16 and tf32 searches of 512,1024,4096 (empty results, cold cache; tf32's first
#    since the K-major copies joined its space);
# 2. bf16 and fp16 re-tuned over #45's 19 shapes into a copy of the shipped H200 results;
# 3. what the library delivers over those 19 shapes in bf16 and fp16 (graph replays against cuBLAS).
# Copy $OUT/results/nvidia-h200.json back to ship it.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
PRECISIONS="bf16 tf32" B=$B timeout 200 bash scripts/spikes/fresh-user.sh
echo "fresh-user at $((SECONDS - T0)) s"
mkdir -p "$OUT/results" && cp results/nvidia-h200.json "$OUT/results/"
BENCH=512,1000,1024,2048,3000,4095,4096,8192,64x4096x4096,4096x64x4096,4096x4096x64
LLM=512x11008x4096,512x4096x11008,512x28672x8192,512x8192x28672,4096x11008x4096,4096x4096x11008,4096x28672x8192,4096x8192x28672
for p in bf16 fp16; do
  timeout 130 $B/tuner/gemm-tune --gpu auto --sizes "$BENCH,$LLM" --precision $p --time-budget 4 -j16 \
    --results-dir "$OUT/results" > "$OUT/retune-$p.log" 2>&1
  echo "retune $p rc $? at $((SECONDS - T0)) s"; grep -A20 "^problem" "$OUT/retune-$p.log" | cut -c1-130
done
for p in bf16 fp16; do
  timeout 60 $B/runtime/gemmtune-heldout --results "$OUT/results" --precision $p --only tuned,llm \
    -o "$OUT/heldout-$p.json" > "$OUT/heldout-$p.log" 2>&1
  echo "heldout $p rc $? at $((SECONDS - T0)) s"; grep -E "geometric mean" "$OUT/heldout-$p.log"
done
date -u +%FT%TZ
rm -rf "$OUT/results/"*.lock "$OUT/results/logs"  # the device tool brings back a few files only
