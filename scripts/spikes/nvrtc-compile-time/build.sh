#!/usr/bin/env bash
# Builds the two NVRTC spikes beside this file, nvrtc_compile_time and nvrtc_flags, against a build of
# gemm-tune (default: build/ of this checkout), into OUT_DIR (default: that build directory).
# usage: scripts/spikes/nvrtc-compile-time/build.sh [BUILD_DIR] [OUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$root/build}
out=${2:-$build}
for program in nvrtc_compile_time nvrtc_flags; do
  g++ -std=c++17 -O2 -I"$root" -I"$root/core/include" -I"$build/generated" -I/usr/local/cuda/include \
    "$root/scripts/spikes/nvrtc-compile-time/$program.cpp" "$build/core/libgemmtune_core.a" \
    -L/usr/local/cuda/lib64 -lnvrtc -lfmt -lspdlog -lpthread -o "$out/$program" -Wl,-rpath,/usr/local/cuda/lib64
  echo "$out/$program"
done
