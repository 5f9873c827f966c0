#!/usr/bin/env bash
# Session 32 on the H200: the decode bench through the library over the bf16 decode re-tune
# (.device-build/h200.json, carried); entries whose winner ran below 0.97x cuBLAS there keep the
# shipped entry (keep-earlier-where-slower.py), and the decode bench runs again over that file.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS; D=scripts/spikes/decode
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
R=/tmp/R; rm -rf $R; cp -r results $R; cp $B/h200.json $R/nvidia-h200.json
timeout 260 $B/runtime/gemmtune-heldout --results $R --precision bf16 --only decode -o $OUT/decode-retuned.json \
  > $OUT/decode-retuned.log 2>&1
echo "decode bench (re-tune) rc $? at $((SECONDS - T0)) s"; tail -3 $OUT/decode-retuned.log | cut -c1-150
python3 $D/keep-earlier-where-slower.py $R/nvidia-h200.json results/nvidia-h200.json $OUT/decode-retuned.json \
  $OUT/nvidia-h200.json && cp $OUT/nvidia-h200.json $R/nvidia-h200.json
timeout $((590 - (SECONDS - T0))) $B/runtime/gemmtune-heldout --results $R --precision bf16 --only decode \
  -o $OUT/decode-bf16.json > $OUT/decode.log 2>&1
echo "decode bench (shipped file) rc $? at $((SECONDS - T0)) s"; tail -3 $OUT/decode.log | cut -c1-150
