#!/usr/bin/env bash
# Installs the build dependencies from the distribution's packages (Debian/Ubuntu) and builds
# gemm-tune into build/. The CUDA Toolkit (12 or newer) must already be under /usr/local/cuda.
# GEMMTUNE_BUILD_TARGETS (space-separated) builds only those targets (scripts/test.sh: what its tests
# use); ccache, where installed, serves rebuilds and a second CI run.
set -euo pipefail
cd "$(dirname "$0")/.."

# zlib1g-dev and chromium: the host test that renders the compare command's HTML report.
# clang-14 and its runtimes: the fuzz targets (libFuzzer) of scripts/test.sh. ccache: faster rebuilds.
packages=(cmake g++ make nlohmann-json3-dev libspdlog-dev libfmt-dev libcli11-dev libgtest-dev zlib1g-dev chromium
          clang-14 libclang-rt-14-dev ccache)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi

if [ ! -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  echo "error: the CUDA Toolkit was not found (expected /usr/local/cuda)" >&2
  exit 1
fi
export PATH=/usr/local/cuda/bin:$PATH

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # Paths relative to the checkout, so another clone (CI's fresh one) hits the same cache entries.
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"
fi
# shellcheck disable=SC2086 # GEMMTUNE_CMAKE_ARGS is a list of arguments
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT=/usr/local/cuda "${launcher[@]}" \
  ${GEMMTUNE_CMAKE_ARGS:-}
targets=()
# shellcheck disable=SC2206 # a space-separated list of target names
[ -z "${GEMMTUNE_BUILD_TARGETS:-}" ] || targets=(--target ${GEMMTUNE_BUILD_TARGETS})
cmake --build build -j "$(nproc)" "${targets[@]}"
