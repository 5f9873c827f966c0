#!/usr/bin/env bash
# Session 39's third device call (H200): the wgmma kernels whose prologue (barriers, tensor-map
# prefetch) runs before griddepcontrol.wait and whose producer lets the next grid launch after its
# last load. The deep sweeps again (call 2 ran them on the build before: deep-run.sh), and the large
# shapes' tiles on both builds (build-old-device: the build before), interleaved.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
SHAPES="1024 512 1000 64x4096x4096 4096x64x4096 4096x4096x64"
for p in bf16 tf32; do
  sizes=$(for s in $SHAPES; do printf "%s:%s," $s $p; done)
  timeout 200 ./.device-build/tuner/gemm-tune --results-dir $OUT/deep-$p --space scripts/spikes/small-tc/wgmma-deep-$p.json \
    --strategy exhaustive --sizes "${sizes%,}" --no-warm-start -j16 --top 4 > $OUT/deep-$p.log 2>&1
  echo "deep $p rc $? at $((SECONDS - T0)) s"; grep -A14 "^problem" $OUT/deep-$p.log
done
for round in 1 2; do
  for b in build-old-device .device-build; do
    GEMMTUNE_CACHE_DIR=/tmp/gc-$b timeout 100 ./$b/tuner/gemm-tune --results-dir /tmp/large-$b-$round \
      --space scripts/spikes/small-tc/wgmma-large-bf16.json --strategy exhaustive \
      --sizes 2048:bf16,4096:bf16,8192:bf16,512x11008x4096:bf16 --no-warm-start -j16 --top 3 > $OUT/large-$b-$round.log 2>&1
    echo "large $b round $round rc $? at $((SECONDS - T0)) s"; grep -A6 "^problem" $OUT/large-$b-$round.log
  done
done
date -u +%FT%TZ
