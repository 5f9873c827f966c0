#!/usr/bin/env bash
# device call of session 31: split-K past one wave of tiles. 512x11008x4096 bf16 is 172 tiles of
# 256x128 on 132 SMs (1.3 waves, 0.757x cuBLAS); split in two, its units even out. The LLM
# projections at m = 512 and two cubes re-tuned over spaces that offer split-K up to 3 waves.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
for p in bf16 fp16; do
  SIZES=2048:$p,3000:$p
  for nk in 11008x4096 4096x11008 28672x8192 8192x28672; do SIZES=$SIZES,512x$nk:$p; done
  timeout 250 $B/tuner/gemm-tune --gpu auto --sizes $SIZES --time-budget 10 \
    --space scripts/spikes/hopper/spaces/wgmma-$p-waves3.json --results-dir $OUT/w > $OUT/waves-$p.log 2>&1
  echo "waves $p rc $? at $((SECONDS - T0)) s"
done
for p in bf16 fp16; do grep -A7 "^problem" $OUT/waves-$p.log | cut -c1-140; done
