#!/usr/bin/env bash
# Builds nvrtc_compile_time against a build of gemm-tune (default: build/ of this checkout).
# usage: scripts/spikes/nvrtc-compile-time/build.sh [BUILD_DIR] [OUTPUT]
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$root/build}
out=${2:-$build/nvrtc_compile_time}
g++ -std=c++17 -O2 -I"$root" -I"$build/generated" -I/usr/local/cuda/include \
  "$root/scripts/spikes/nvrtc-compile-time/nvrtc_compile_time.cpp" "$build/core/libgemmtune_core.a" \
  -L/usr/local/cuda/lib64 -lnvrtc -lfmt -lspdlog -lpthread -o "$out" -Wl,-rpath,/usr/local/cuda/lib64
echo "$out"
