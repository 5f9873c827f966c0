#!/usr/bin/env bash
# On the GPU machine (carry build-carry-python, staged with the new library, and the old library at
# build-carry-python/oldlib/libgemmtune.so.0): runtime_gpu_tests' graph tests, then replay_ab.py with
# the old and the new library in turn, twice. Logs under $OUT.
set -uo pipefail
: "${OUT:=/tmp/out}"; mkdir -p "$OUT"
here=build-carry-python
export GEMMTUNE_CACHE_DIR=/tmp/gemmtune-cache PYTHONPATH=$PWD/$here/site PYTHONUNBUFFERED=1
export GEMMTUNE_RESULTS=$PWD/results  # both libraries read the same results (the old one lies elsewhere)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
new=$PWD/$here/site/gemmtune/lib/libgemmtune.so.0 old=$PWD/$here/oldlib/libgemmtune.so.0
for round in 1 2; do
  for tag in old new; do
    lib=$new; [ $tag = old ] && lib=$old
    GEMMTUNE_LIBRARY=$lib timeout 120 python3 scripts/spikes/graphs/replay_ab.py "$tag" 2>&1 | tail -1 | tee -a "$OUT/replay.jsonl"
  done
done
