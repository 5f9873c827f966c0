#!/usr/bin/env bash
# Session 48 (#46): the FP32 tuned and held-out sets through three builds of the library, the same
# gemmtune-heldout binary and shipped results: before session 47's bias (104e78f), at its end
# (3c62b8e), and this tree (sgemm's first slice adds the bias). The libraries are staged in
# .device-build/lib-REV/ and picked through LD_LIBRARY_PATH (ahead of the binary's RUNPATH); each has
# its own compile cache (their templates differ). Carry .device-build. Logs under $OUT.
set -uo pipefail
: "${OUT:=/tmp/out}"; mkdir -p "$OUT"
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
source scripts/spikes/issue45-retune.sh
shipped_results
for rev in ${REVS:-104e78f 3c62b8e tree}; do
  lib=$PWD/$B/runtime; [ "$rev" = tree ] || lib=$PWD/$B/lib-$rev
  GEMMTUNE_CACHE_DIR=/tmp/gc-$rev LD_LIBRARY_PATH=$lib timeout "${SECONDS_LIMIT:-120}" $B/runtime/gemmtune-heldout \
    --results "$OUT/results" --precision fp32 --only tuned,heldout -o "$OUT/heldout-$rev.json" > "$OUT/heldout-$rev.log" 2>&1
  echo "$rev rc $? at $((SECONDS - T0)) s"; grep -E "geometric mean" "$OUT/heldout-$rev.log"
done
rm -rf "$OUT/results"
