#!/usr/bin/env bash
# The whole test suite: installs what is missing and builds (scripts/setup.sh), then runs the three
# tiers through CTest. host and nvrtc need no GPU; the gpu tier reports "Skipped" without one.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${CI:-}" = true ]; then
  export GEMMTUNE_CMAKE_ARGS="${GEMMTUNE_CMAKE_ARGS:-} -DGEMMTUNE_WARNINGS_AS_ERRORS=ON"
fi
scripts/setup.sh
cd build
ctest --output-on-failure --timeout 900 -L 'host|nvrtc|gpu' "$@"
