#!/usr/bin/env bash
# Copies the binaries a GPU run needs from build/ into .device-build/ (same layout, no object
# files), small enough to travel with the device tool. Run after scripts/setup.sh; then
# scripts/device-run.sh on the GPU machine uses .device-build/ when it exists.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .device-build
for f in tests/gpu_tests tests/host_tests tests/runtime_gpu_tests tuner/gemm-tune examples/tuned_sgemm \
         runtime/gemmtune-call-overhead runtime/gemmtune-heldout; do
  mkdir -p ".device-build/$(dirname "$f")"
  cp "build/$f" ".device-build/$f"
done
cp -P build/runtime/libgemmtune.so* .device-build/runtime/
du -sh .device-build
