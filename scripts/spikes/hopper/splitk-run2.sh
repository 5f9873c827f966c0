#!/usr/bin/env bash
# device call 2 of session 31: the rest of the benchmark set's small and skinny shapes re-tuned
# over the wgmma spaces with split-K and row-by-row raster (3xtf32's other cubes, fp16, tf32), the
# 3xtf32 bench over the 11 shapes, a spike of 64-row wgmma tiles for bf16, and the 3xtf32 held-out
# bench through the library.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
R=/tmp/R; rm -rf $R; cp -r results $R
SIZES=512:3xtf32,1000:3xtf32,2048:3xtf32,4095:3xtf32
for p in fp16 tf32; do SIZES=$SIZES,512:$p,1024:$p,64x4096x4096:$p,4096x64x4096:$p; done
timeout 250 $B/tuner/gemm-tune --gpu auto --sizes $SIZES --time-budget 15 --results-dir $R > $OUT/retune.log 2>&1
echo "retune rc $? at $((SECONDS - T0)) s"
cp $R/nvidia-h100-80gb-hbm3.json $OUT/
timeout 90 $B/tuner/gemm-tune bench --precision 3xtf32 --results-dir $R > $OUT/bench.log 2>&1
echo "bench rc $? at $((SECONDS - T0)) s"
timeout 80 $B/tuner/gemm-tune --gpu auto --sizes 64x4096x4096:bf16,1024:bf16,512:bf16 \
  --space scripts/spikes/hopper/spaces/wgmma-bf16-rows64.json --results-dir $OUT/r64 > $OUT/rows64.log 2>&1
echo "rows64 rc $? at $((SECONDS - T0)) s"
left=$((585 - (SECONDS - T0)))
timeout $left $B/runtime/gemmtune-heldout --results $R --precision 3xtf32 -o $OUT/heldout-3xtf32.json > $OUT/heldout.log 2>&1
echo "heldout rc $? at $((SECONDS - T0)) s"
grep -A14 "^problem" $OUT/retune.log | cut -c1-140
tail -14 $OUT/bench.log | cut -c1-175
grep -A4 "^problem" $OUT/rows64.log | cut -c1-140
tail -4 $OUT/heldout.log | cut -c1-150
