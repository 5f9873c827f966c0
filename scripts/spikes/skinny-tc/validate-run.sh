#!/usr/bin/env bash
# Session 46's last call (one H200; .device-build and build-carry-python carried): with cluster pairs
# in the wgmma spaces and the re-tuned entries shipped: the runtime's GPU tests and the Python GPU
# tier over the staged package, a fresh user's bf16 search (empty results, cold compile cache; the
# spaces grew), and the library over bf16's held-out set with the shipped results.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
PY_TIMEOUT=120 bash build-carry-python/device-python.sh runtime,pytest > $OUT/python.txt 2>&1
echo "runtime + python at $((SECONDS - T0)) s"; grep -v "^==" $OUT/python.txt | grep -E "passed|failed|PASSED|FAILED|rc=|error" | head
PRECISIONS=bf16 bash scripts/spikes/fresh-user.sh
echo "fresh user at $((SECONDS - T0)) s"
source scripts/spikes/issue45-retune.sh
shipped_results
library bf16 heldout 120
rm -rf "$OUT/results"
tar czf $OUT/bring_back.tgz -C $OUT --exclude=bring_back.tgz . 2>/dev/null
date -u +%FT%TZ
