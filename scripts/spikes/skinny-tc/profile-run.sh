#!/usr/bin/env bash
# Session 46 (one H200; .device-build carried): where the wgmma kernel's time goes at 64x4096x4096
# bf16 against cuBLAS's: Nsight Compute over a race of profile-bf16.json (64x64 tiles, 12 stages,
# K in 1 or 2 slices), every kernel of the race (ours, the split-K pre-pass, cuBLAS's), caches flushed
# before each as the race's rotated buffers leave them cold.
set -uo pipefail
B=.device-build; D=scripts/spikes/skinny-tc; T0=$SECONDS
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
export GEMMTUNE_CACHE_DIR=/tmp/gc
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum
for size in ${SIZES:-64x4096x4096:bf16 4096x64x4096:bf16}; do
  timeout 240 $ncu --target-processes all --clock-control none --metrics $M --launch-count ${LAUNCHES:-400} --kernel-name regex:"wgmma|nvjet|scale|splitk|sm90" \
    --csv $B/tuner/gemm-tune --results-dir $OUT/p-${size//:/-} --space $D/profile-bf16.json --strategy exhaustive \
    --sizes $size --no-warm-start -j16 --top 2 --eval-timeout 120 > $OUT/ncu-${size//:/-}.csv 2> $OUT/ncu-${size//:/-}.err
  echo "$size ncu rc $? at $((SECONDS - T0)) s"
  python3 $D/ncu_summary.py $OUT/ncu-${size//:/-}.csv
done
tar czf $OUT/bring_back.tgz -C $OUT --exclude=bring_back.tgz . 2>/dev/null
date -u +%FT%TZ
