#!/usr/bin/env bash
# Session 39's first device call (H200), over a carried .device-build holding
# spikes/cublas_kernels (nvcc -O2 -arch=sm_90 cublas_kernels.cu -lcublas): cuBLAS's own kernels and
# times at #44's small and skinny shapes (which kernel, grid, cluster, how busy), then our wgmma bf16
# family widened to 64-row and 64-column tiles (wgmma-small-bf16.json), exhaustive, against cuBLAS.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
$B/spikes/cublas_kernels | tee $OUT/cublas-times.txt
PROBE_CALLS=1 timeout 120 $ncu --clock-control none --section LaunchStats --section SpeedOfLight --section Occupancy \
  $B/spikes/cublas_kernels > $OUT/ncu-cublas.txt 2>&1
echo "ncu cublas rc $? at $((SECONDS - T0)) s"
grep -E "^  [a-zA-Z_].*\(|Duration|Grid Size|Cluster Size|Block Size|Registers Per|Compute \(SM\) Throughput|Memory Throughput" \
  $OUT/ncu-cublas.txt | sed 's/  */ /g' | head -400 > $OUT/ncu-cublas-brief.txt
timeout 420 ./$B/tuner/gemm-tune --results-dir $OUT/sweep --space scripts/spikes/small-tc/wgmma-small-bf16.json \
  --strategy exhaustive --sizes 1024:bf16,512:bf16,1000:bf16,64x4096x4096:bf16,4096x64x4096:bf16,4096x4096x64:bf16 \
  --no-warm-start -j16 --top 4 > $OUT/sweep.log 2>&1
echo "sweep rc $? at $((SECONDS - T0)) s"
grep -A14 "^problem" $OUT/sweep.log
date -u +%FT%TZ
