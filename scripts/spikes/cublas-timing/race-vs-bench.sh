#!/usr/bin/env bash
# On the GPU machine: does the tuner's race time cuBLAS slower than the held-out bench does, in one
# call on one GPU? The decode shapes in bf16, a 16-bit C (C=":c16", default) or FP32 C (C=""), of
# the layouts in LAYOUTS (default nt), timed by `gemm-tune bench` (the race's
# GpuBench::time_rounds: cuBLAS against the stored winner) between two runs of gemmtune-heldout
# --only decode (through the library, all 72 shapes). Compare with race_vs_bench.py.
# After scripts/stage-device-build.sh; the results are copied, not written.
set -u
cd "$(dirname "$0")/../../.."
export GEMMTUNE_CACHE_DIR=${GEMMTUNE_CACHE_DIR:-/tmp/gemmtune-cache}
R=/tmp/race-vs-bench-results
rm -rf "$R" && cp -r results "$R"
sizes=""
for op in ${LAYOUTS:-nt}; do
  for nk in 4096x4096 11008x4096 4096x11008 8192x8192 28672x8192 8192x28672; do
    for m in 1 2 4 8 16 32; do sizes+="${m}x${nk}:${op},"; done
  done
done
sizes=${sizes%,}
c=${C-:c16}
tag=bf16${c/:/-}
heldout() {
  ./.device-build/runtime/gemmtune-heldout --results "$R" --only decode --precision bf16 ${c:+--c16} \
    -o "$OUT/heldout-$tag-$1.json" > "$OUT/heldout-$tag-$1.log" 2>&1
  echo "heldout $1: $(tail -1 "$OUT/heldout-$tag-$1.log")"
}
heldout 1
./.device-build/tuner/gemm-tune --results-dir "$R" bench -j16 --precision bf16 \
  --sizes "$(echo "$sizes" | sed "s/,/$c,/g")$c" > "$OUT/race-$tag.log" 2>&1
cp "$(ls -t "$R"/bench-*.json | head -1)" "$OUT/race-$tag.json"  # the one just written
echo "race: $(tail -1 "$OUT/race-$tag.log")"
heldout 2
