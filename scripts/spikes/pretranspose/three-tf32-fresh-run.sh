#!/usr/bin/env bash
# After "pretranspose": [false, true] joined configs/wgmma-3xtf32.json (2026-11-29): does a fresh
# user's 3xtf32 search (empty results, cold compile cache, default budget) find the K-major copies
# outside nt? 2048 and 4096 nn, 4096 tn. The log goes to $OUT/fresh-3xtf32.log.
set -uo pipefail
B=${B:-.device-build}; T0=$SECONDS
date -u +%FT%TZ
cache=$(mktemp -d); res=$(mktemp -d)
GEMMTUNE_CACHE_DIR=$cache timeout 150 $B/tuner/gemm-tune --gpu auto --sizes 2048,4096,4096:tn --precision 3xtf32 \
  --results-dir $res > $OUT/fresh-3xtf32.log 2>&1
echo "fresh 3xtf32 rc $? at $((SECONDS - T0)) s"; grep -A4 "^problem" $OUT/fresh-3xtf32.log | cut -c1-130
rm -rf "$cache" "$res"
