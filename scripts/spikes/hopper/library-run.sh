#!/usr/bin/env bash
# device call 4 of session 31: through the library with the shipped results, bf16 over the held-out,
# tuned and LLM sets and fp16 over the tuned and LLM sets (#45's 19 shapes); then a fresh user's
# bf16 search over the wgmma spaces with split-K and row-by-row raster.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
timeout 220 $B/runtime/gemmtune-heldout --results results --precision bf16 --only heldout,tuned,llm \
  -o $OUT/heldout-bf16.json > $OUT/heldout-bf16.log 2>&1
echo "heldout bf16 rc $? at $((SECONDS - T0)) s"
timeout 150 $B/runtime/gemmtune-heldout --results results --precision fp16 --only tuned,llm \
  -o $OUT/heldout-fp16-llm.json > $OUT/heldout-fp16.log 2>&1
echo "heldout fp16 rc $? at $((SECONDS - T0)) s"
PRECISIONS=bf16 timeout 200 bash scripts/spikes/fresh-user.sh
for p in bf16 fp16; do tail -5 $OUT/heldout-$p.log | cut -c1-150; done
grep -E "^llm " $OUT/heldout-bf16.log $OUT/heldout-fp16.log | cut -c1-170
