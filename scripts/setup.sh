#!/usr/bin/env bash
# Installs the build dependencies from the distribution's packages (Debian/Ubuntu) and builds
# gemm-tune into build/. The CUDA Toolkit (12 or newer) must already be under /usr/local/cuda.
set -euo pipefail
cd "$(dirname "$0")/.."

# zlib1g-dev and chromium: the host test that renders the compare command's HTML report.
# clang-14 and its runtimes: the fuzz targets (libFuzzer) of scripts/test.sh.
packages=(cmake g++ make nlohmann-json3-dev libspdlog-dev libfmt-dev libcli11-dev libgtest-dev zlib1g-dev chromium
          clang-14 libclang-rt-14-dev)
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

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT=/usr/local/cuda ${GEMMTUNE_CMAKE_ARGS:-}
cmake --build build -j "$(nproc)"
