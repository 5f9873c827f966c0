#!/usr/bin/env bash
# Builds nvrtc_flags against a build of gemm-tune (default: build/ of this checkout); run it from the
# checkout's root (it calls text_sections.py beside it).
# usage: scripts/spikes/nvrtc-flags/build.sh [BUILD_DIR] [OUTPUT]
#   then: OUTPUT results/nvidia-h100-80gb-hbm3.json 16 sm_90 --minimal
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$root/build}
out=${2:-$build/nvrtc_flags}
g++ -std=c++17 -O2 -I"$root" -I"$root/core/include" -I"$build/generated" -I/usr/local/cuda/include \
  "$root/scripts/spikes/nvrtc-flags/nvrtc_flags.cpp" "$build/core/libgemmtune_core.a" \
  -L/usr/local/cuda/lib64 -lnvrtc -lfmt -lspdlog -lpthread -o "$out" -Wl,-rpath,/usr/local/cuda/lib64
echo "$out"
