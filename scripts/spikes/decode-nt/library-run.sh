#!/usr/bin/env bash
# Session 38: the H200's FP32 decode rows with B transposed through the library (graph replays), with
# the shipped results that now hold the six m = 32 nt shapes tuned in final-run.sh.
set -uo pipefail
B=.device-build
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 200 $B/runtime/gemmtune-heldout --results results --only decode --layout nt -o $OUT/decode-nt.json \
  > $OUT/decode-nt.log 2>&1; echo "rc $?"
grep -E "^decode .* 32x|geometric|bandwidth" $OUT/decode-nt.log | cut -c1-170
date -u +%FT%TZ
