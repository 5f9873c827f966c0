#!/usr/bin/env bash
# The whole test suite: installs what is missing and builds (scripts/setup.sh), then runs the three
# tiers through CTest. host and nvrtc need no GPU; the gpu tier reports "Skipped" without one.
# Then the hardening builds, each in a directory of its own: the libFuzzer targets (clang,
# build-fuzz), each run briefly over its seed corpus (label fuzz); and, in CI or with
# GEMMTUNE_SANITIZE=ON, the host and nvrtc tiers again under AddressSanitizer and
# UndefinedBehaviorSanitizer (build-asan).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${CI:-}" = true ]; then
  export GEMMTUNE_CMAKE_ARGS="${GEMMTUNE_CMAKE_ARGS:-} -DGEMMTUNE_WARNINGS_AS_ERRORS=ON"
fi
scripts/setup.sh
(cd build && ctest --output-on-failure --timeout 900 -L 'host|nvrtc|gpu' "$@")

jobs="$(nproc)"
# shellcheck disable=SC2086 # GEMMTUNE_CMAKE_ARGS is a list of arguments
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDAToolkit_ROOT=/usr/local/cuda \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DGEMMTUNE_FUZZ=ON ${GEMMTUNE_CMAKE_ARGS:-}
cmake --build build-fuzz -j "$jobs" --target gemmtune_fuzz_targets
(cd build-fuzz && ctest --output-on-failure -L fuzz)

if [ "${CI:-}" = true ] || [ "${GEMMTUNE_SANITIZE:-}" = ON ]; then
  # shellcheck disable=SC2086
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDAToolkit_ROOT=/usr/local/cuda \
    -DGEMMTUNE_SANITIZE=ON ${GEMMTUNE_CMAKE_ARGS:-}
  cmake --build build-asan -j "$jobs" --target host_tests nvrtc_tests runtime_host_tests runtime_nvrtc_tests \
    runtime_api_tests c_api_test
  # protect_shadow_gap=0: the CUDA driver maps memory where ASan's shadow gap would be. The package
  # test installs and builds a consumer project, which an instrumented library cannot serve.
  (cd build-asan && ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure --timeout 1800 -L 'host|nvrtc' -E '^Package\.')
fi
