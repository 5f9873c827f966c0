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
BENCH=512,1000,1024,2048,3000,4095,4096,8192,64x4096x4096,4096x64x4096,4096x4096x64
LLM=512x11008x4096,512x4096x11008,512x28672x8192,512x8192x28672,4096x11008x4096,4096x4096x11008,4096x28672x8192,4096x8192x28672
for job in bf16:$BENCH,$LLM fp16:$BENCH,$LLM tf32:$BENCH; do
  p=${job%%:*}
  timeout 140 $B/tuner/gemm-tune --gpu auto --sizes "${job#*:}" --precision $p --time-budget 5 -j16 \
    --results-dir "$OUT/results" > "$OUT/retune-$p.log" 2>&1
  echo "retune $p rc $? at $((SECONDS - T0)) s"; grep -A20 "^problem" "$OUT/retune-$p.log" | cut -c1-130
done
for p in bf16 fp16; do
  timeout 80 $B/runtime/gemmtune-heldout --results "$OUT/results" --precision $p --only tuned,llm \
    -o "$OUT/heldout-$p.json" > "$OUT/heldout-$p.log" 2>&1
  echo "heldout $p rc $? at $((SECONDS - T0)) s"; grep -E "geometric mean" "$OUT/heldout-$p.log"
done
date -u +%FT%TZ
# The device tool brings back few files: the results file beside one tarball of the logs.
rm -rf "$OUT/results/"*.lock "$OUT/results/logs"
mv "$OUT/results/nvidia-h100-80gb-hbm3.json" "$OUT/" && rmdir "$OUT/results"
(cd "$OUT" && tar czf /tmp/logs.tgz --exclude=nvidia-h100-80gb-hbm3.json . && find . -mindepth 1 \
  ! -name nvidia-h100-80gb-hbm3.json -delete && mv /tmp/logs.tgz .)
