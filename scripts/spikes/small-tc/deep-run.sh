#!/usr/bin/env bash
# Session 39's second device call (H200): the wgmma bf16 and tf32 families with deep stage rings
# (up to 16, bounded by shared memory), exhaustive at #44's small and skinny shapes, against cuBLAS;
# then Nsight Compute's sections of cuBLAS's 1024^3 bf16 kernel and of ours with its tile and depth.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
SHAPES="1024 512 1000 64x4096x4096 4096x64x4096 4096x4096x64"
for p in bf16 tf32; do
  sizes=$(for s in $SHAPES; do printf "%s:%s," $s $p; done)
  timeout 200 ./$B/tuner/gemm-tune --results-dir $OUT/deep-$p --space scripts/spikes/small-tc/wgmma-deep-$p.json \
    --strategy exhaustive --sizes "${sizes%,}" --no-warm-start -j16 --top 4 > $OUT/deep-$p.log 2>&1
  echo "deep $p rc $? at $((SECONDS - T0)) s"; grep -A14 "^problem" $OUT/deep-$p.log
done
sections="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis"
PROBE_CALLS=1 timeout 60 $ncu --clock-control none --launch-skip 2 --launch-count 1 $sections \
  $B/spikes/cublas_kernels > $OUT/ncu-1024.txt 2>&1
timeout 80 $ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:wgmma_gemm<" --launch-count 1 $sections \
  ./$B/tuner/gemm-tune --results-dir /tmp/p1 --space scripts/spikes/small-tc/profile-128x64-s8.json \
  --strategy exhaustive --sizes 1024:bf16 --no-warm-start --eval-timeout 60 >> $OUT/ncu-1024.txt 2>&1
echo "ncu rc $? at $((SECONDS - T0)) s"; date -u +%FT%TZ
