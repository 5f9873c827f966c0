#!/usr/bin/env bash
# Stages the Python package for a GPU run through the device tool, which ships only the checkout it
# was started in: the installed layout (gemmtune/ with lib/, bin/gemm-tune and the shipped results),
# tests/python, the benchmark, runtime_gpu_tests and scripts/device-python.sh, into DEST (default
# ./build-carry-python, ignored by /build*/). Run after scripts/setup.sh built gemmtune, gemmtune_static,
# gemm-tune and runtime_gpu_tests. DEST may lie in another checkout (the one the device tool ships):
# the results are then a link to that checkout's results/, four levels up from share/gemmtune/.
# Then: run `bash build-carry-python/device-python.sh [runtime|pytest|bench|all]` with carry
# ["build-carry-python"].
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
dst=$(realpath -m "${1:-$src/build-carry-python}")
rm -rf "$dst"
mkdir -p "$dst/site" "$dst/tests" "$dst/bin" "$dst/runtime"
cmake --install "$src/build" --prefix "$dst/site/gemmtune" > /dev/null
rm -rf "$dst/site/gemmtune/share/gemmtune/results" "$dst/site/gemmtune/include" "$dst/site/gemmtune/lib/cmake" \
  "$dst/site/gemmtune/lib/libgemmtune.a"
ln -s ../../../../../results "$dst/site/gemmtune/share/gemmtune/results"  # DEST's checkout's results/
cp -r "$src/python/gemmtune/." "$dst/site/gemmtune/"
cp -r "$src/tests/python" "$dst/tests/python"
cp "$src/python/benchmarks/torch_bench.py" "$src/scripts/device-python.sh" "$dst/"
cp "$src/build/tests/runtime_gpu_tests" "$dst/bin/"
ln -s ../site/gemmtune/lib/libgemmtune.so.0 "$dst/runtime/libgemmtune.so.0"  # the tests' RUNPATH $ORIGIN/../runtime
find "$dst" -name __pycache__ -prune -exec rm -rf {} +
du -sh "$dst"
