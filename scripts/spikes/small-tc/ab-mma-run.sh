#!/usr/bin/env bash
# Session 39's seventh and eighth device calls (H200): the mma kernels with and without the early
# launch of the next grid (build-old-device: the build at d8e10dd, before it), a few tiles each,
# exhaustive, two interleaved rounds of each build, against cuBLAS in the same race. The seventh had
# every grid launch its successor early (mixed: split-K faster, unsplit grids slower), the eighth only
# split-K grids.
set -uo pipefail
T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
for round in 1 2; do
  for b in build-old-device .device-build; do
    for job in bf16:512:bf16,16x4096x4096:bf16,1024:bf16,8x4096x4096:bf16,32x4096x11008:bf16 tf32:512:tf32,64x4096x4096:tf32,4096x64x4096:tf32; do
      GEMMTUNE_CACHE_DIR=/tmp/gc-$b timeout 100 ./$b/tuner/gemm-tune --results-dir /tmp/ab-$b-$round-${job%%:*} \
        --space scripts/spikes/small-tc/ab-mma-${job%%:*}.json --strategy exhaustive --sizes "${job#*:}" \
        --no-warm-start -j16 --top 3 > $OUT/ab-$b-$round-${job%%:*}.log 2>&1
      echo "$b round $round ${job%%:*} rc $? at $((SECONDS - T0)) s"; grep -A4 "^problem" $OUT/ab-$b-$round-${job%%:*}.log | cut -c1-110
    done
  done
done
date -u +%FT%TZ
