#!/usr/bin/env bash
# Session 48 (#46): ab_first_slice.py with this tree's library (build-carry-python) and with the one
# before sgemm's first slice added the bias (build-carry-python/old/libgemmtune.so.0, from 3c62b8e),
# twice each, alternating. Then the two binaries' SASS (build-carry-python/ab/*.cubin), if the
# machine has cuobjdump. Carry build-carry-python. Logs under $OUT.
set -uo pipefail
: "${OUT:=/tmp/out}"; mkdir -p "$OUT"
here=$(dirname "$0")
carry=build-carry-python
export GEMMTUNE_CACHE_DIR=/tmp/gemmtune-cache GEMMTUNE_RESULTS=$PWD/$here/pinned-nvidia-h200.json
export PYTHONPATH=$PWD/$carry/site LD_LIBRARY_PATH=$PWD/$carry/site/gemmtune/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for round in 1 2; do
  for side in new old; do
    lib=$PWD/$carry/site/gemmtune/lib/libgemmtune.so
    [ "$side" = old ] && lib=$PWD/$carry/old/libgemmtune.so.0
    GEMMTUNE_LIBRARY=$lib timeout 120 python3 "$here/ab_first_slice.py" "$side" 2>&1 | tail -4
  done
done | tee "$OUT/ab.log"
cuobjdump=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -1)
if [ -n "$cuobjdump" ]; then
  for f in "$carry"/ab/*.cubin; do "$cuobjdump" -sass "$f" > "$OUT/$(basename "$f" .cubin).sass"; done
else
  echo "no cuobjdump here"
fi
