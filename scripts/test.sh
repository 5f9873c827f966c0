#!/usr/bin/env bash
# The whole test suite. Two builds, so CI (2 cores) spends its time on one compile per configuration:
#  - build/ (scripts/setup.sh; Release, gcc): the host and gpu tiers through CTest (the gpu tier
#    reports "Skipped" without a GPU), the Package test, and label slurm (tests/slurm: a one-node
#    Slurm cluster; skipped where it cannot be set up). The nvrtc tier too, unless the sanitized
#    build below runs it. Only what those tests use is built.
#  - build-fuzz (clang, AddressSanitizer + UndefinedBehaviorSanitizer + libFuzzer's coverage
#    instrumentation): the libFuzzer targets, each run briefly over its seed corpus (label fuzz);
#    in CI (CI=true) or with GEMMTUNE_SANITIZE=ON, the host and nvrtc tiers from the same build, so
#    sanitized tiers and fuzzers share one compile. The nvrtc tier runs in this build only then.
# Tests run in parallel (ctest -j, one per core): each works in a temporary directory of its own.
# ccache, where installed, serves a second run's compiles (scripts/setup.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${CI:-}" = true ]; then
  export GEMMTUNE_CMAKE_ARGS="${GEMMTUNE_CMAKE_ARGS:-} -DGEMMTUNE_WARNINGS_AS_ERRORS=ON"
fi
sanitize_tiers=false
if [ "${CI:-}" = true ] || [ "${GEMMTUNE_SANITIZE:-}" = ON ]; then sanitize_tiers=true; fi

jobs=$(nproc)

# What the release build's labels run plus what the Package test installs (tests/CMakeLists.txt
# lists them): not the benchmarks or the PTX tool.
release_labels='host|gpu|slurm'
export GEMMTUNE_BUILD_TARGETS=gemmtune_release_tiers
if ! $sanitize_tiers; then
  release_labels='host|nvrtc|gpu|slurm'
  GEMMTUNE_BUILD_TARGETS=gemmtune_release_and_nvrtc_tiers
fi
scripts/setup.sh
# --timeout applies to tests without a TIMEOUT of their own (the Slurm and Package tests have one).
(cd build && ctest --output-on-failure -j "$jobs" --timeout 900 -L "$release_labels" "$@")

# The Python package's CPU tier (tests/python) against build/'s library and tuner: the package, the
# C API through ctypes, the stride mapping, results checks, record and tune's exit codes, the
# installed layout. Tests that need torch skip where it is not installed (CI installs none: PyPI's
# torch is a CUDA build of several GB); those that need a GPU skip without one.
python3 -c 'import pytest' 2>/dev/null || python3 -m pip install --quiet --disable-pip-version-check pytest
GEMMTUNE_LIBRARY="$PWD/build/runtime/libgemmtune.so" GEMMTUNE_TUNER="$PWD/build/tuner/gemm-tune" \
  python3 -m pytest -q -p no:cacheprovider tests/python

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # Paths relative to the checkout, so another clone (CI's fresh one) hits the same cache entries.
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"
fi
target=gemmtune_fuzz_targets
labels=fuzz
if $sanitize_tiers; then
  target=gemmtune_sanitized_tiers  # the host and nvrtc test programs and the fuzz targets
  labels='host|nvrtc|fuzz'
fi
# -gline-tables-only instead of -g: sanitizer and fuzzer reports still name file and line in every
# frame, and the build compiles and links faster without the full debug information nobody reads here.
# shellcheck disable=SC2086 # GEMMTUNE_CMAKE_ARGS is a list of arguments
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDAToolkit_ROOT=/usr/local/cuda \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DGEMMTUNE_FUZZ=ON "${launcher[@]}" \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG" \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG" ${GEMMTUNE_CMAKE_ARGS:-}
cmake --build build-fuzz -j "$jobs" --target "$target"
# protect_shadow_gap=0: the CUDA driver maps memory where ASan's shadow gap would be. The package
# test installs and builds a consumer project, which an instrumented library cannot serve. The four
# replays that count hundreds of fresh searches prove statistics, which the release tiers above
# prove already; under the sanitizers they took 27 of CI's 35 minutes (2026-11-26), and the other
# replays still run the same strategy code there.
statistics='StrategyReplay\.(SurrogateThroughTheNoiseOfFreshRuns|SurrogateOnTheDefaultSpace|WarmCacheRerunKeepsToCompiledBinaries|ColdRunsLaterProblemUsesTheEarliersBinaries)$'
(cd build-fuzz && ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j "$jobs" --timeout 1800 -L "$labels" -E "^Package\.|$statistics")
