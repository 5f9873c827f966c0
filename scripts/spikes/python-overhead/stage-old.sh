#!/usr/bin/env bash
# Makes build-carry-python/site-old: the Python files of REV (default HEAD~1) beside the library, tuner
# and results that scripts/stage-python-device.sh staged in build-carry-python/site (run that first).
set -euo pipefail
cd "$(dirname "$0")/../../.."
rev=${1:-HEAD~1}
dst=build-carry-python/site-old/gemmtune
rm -rf build-carry-python/site-old && mkdir -p "$dst"
git archive "$rev" python/gemmtune | tar x --strip-components=2 -C "$dst"
for d in lib bin share; do ln -s "../../site/gemmtune/$d" "$dst/$d"; done
echo "site-old: python/gemmtune at $(git rev-parse --short "$rev")"
