#!/usr/bin/env bash
# For the next session with an H100 (written 2026-11-29, not run): what session 38 measured on the
# H200 only. Re-tunes, into the shipped H100 results, the six m = 32 nt FP32 decode shapes (now won
# by transpose_b kernels on the H200) and the two small-K 3xtf32 shapes (block_k 16), then measures
# through the library the FP32 decode table (#42, target 1.4) and the 3xtf32 tuned set (#44, target
# 1.5, none below 1.2 from 1024 up), and the FP32 held-out and tuned sets (the misalignment rule
# changed). One device call, over a carried .device-build; results under $OUT (copy the H100's
# results file back from $OUT/results to ship it).
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
mkdir -p "$OUT/results" && cp results/nvidia-*.json "$OUT/results/"
timeout 200 $B/tuner/gemm-tune --gpu auto --results-dir "$OUT/results" --time-budget 25 --sizes \
  32x4096x4096:nt,32x4096x11008:nt,32x8192x8192:nt,32x8192x28672:nt,32x11008x4096:nt,32x28672x8192:nt,512:3xtf32,4096x4096x64:3xtf32 \
  > "$OUT/run.log" 2>&1
echo "tune rc $? at $((SECONDS - T0)) s"; grep -A10 "^problem" "$OUT/run.log"
timeout 150 $B/runtime/gemmtune-heldout --results "$OUT/results" --only decode -o "$OUT/decode.json" > "$OUT/step.log" 2>&1
echo "decode rc $? at $((SECONDS - T0)) s"; grep -E "geometric|bandwidth" "$OUT/step.log"; cat "$OUT/step.log" >> "$OUT/run.log"
timeout 60 $B/runtime/gemmtune-heldout --results "$OUT/results" --precision 3xtf32 --only tuned \
  -o "$OUT/tuned-3xtf32.json" > "$OUT/step.log" 2>&1
echo "3xtf32 rc $? at $((SECONDS - T0)) s"; grep -E "^tuned" "$OUT/step.log" | cut -c1-150; cat "$OUT/step.log" >> "$OUT/run.log"
timeout 120 $B/runtime/gemmtune-heldout --results "$OUT/results" -o "$OUT/fp32.json" > "$OUT/step.log" 2>&1
echo "fp32 rc $? at $((SECONDS - T0)) s"; grep -E "geometric mean" "$OUT/step.log"; cat "$OUT/step.log" >> "$OUT/run.log"
date -u +%FT%TZ
# The device tool brings back at most 8 files: the logs are one, the H200 copy and the lock go.
rm -f "$OUT/step.log" "$OUT/results/nvidia-h200.json" "$OUT/results/"*.lock
