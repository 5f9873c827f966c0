#!/usr/bin/env bash
# Session 32: the H200 bf16 decode re-tune's winners at 4x8192x8192, 4x8192x28672 and 2x8192x8192 won
# the tuner's race at 1.00-1.02x cuBLAS but ran at 0.77-0.95x through the library (gemmtune-heldout).
# The same winners measured the tuner's way (gemm-tune bench, GpuBench's interleaved race) beside two
# that agreed, then the decode bench through the library again, over the re-tune's results
# (.device-build/h200.json, carried).
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
R=/tmp/R; rm -rf $R; cp -r results $R; cp $B/h200.json $R/nvidia-h200.json
S=4x8192x8192,4x8192x28672,2x8192x8192,8x4096x4096,1x8192x28672
timeout 200 $B/tuner/gemm-tune bench --sizes $S --precision bf16 --results-dir $R > $OUT/bench.log 2>&1
echo "bench rc $? at $((SECONDS - T0)) s"; grep -E "x8192|x4096|geometric" $OUT/bench.log | cut -c1-160
timeout 300 $B/runtime/gemmtune-heldout --results $R --precision bf16 --only decode -o $OUT/decode-bf16.json \
  > $OUT/decode.log 2>&1
echo "decode bench rc $? at $((SECONDS - T0)) s"
grep -E "4x8192 +|x8192x8192 |4x8192x28672|2x8192x8192 |8x4096x4096 |1x8192x28672" $OUT/decode.log | grep -v ":nt\| nt " | cut -c1-170
tail -3 $OUT/decode.log | cut -c1-150
