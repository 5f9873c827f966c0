#!/usr/bin/env bash
# Proves that a change to the kernel template changed no shipped kernel: compiles every config the
# shipped results files name (each entry's best and alternatives) and the built-in default config,
# for sm_90 and sm_80, from the template at BASE_REV and from the working tree, and compares the PTX
# byte for byte. Exit status 0 only when every file is identical.
#
#   scripts/check-template-ptx.sh BASE_REV [BUILD_DIR]
#
# BUILD_DIR (default: build) is a configured build of this tree; the script builds
# gemmtune-template-ptx there, which compiles through KernelCompiler, so program name, name
# expressions and NVRTC options are exactly the runtime's. Both templates are joined from their
# parts by this tree's cmake/JoinTemplate.cmake (a single-file template joins to itself) and named
# as when embedded. Nothing is stripped from the PTX before the comparison: without -lineinfo NVRTC
# writes neither file names nor line numbers into it (the #line directives of a joined template
# leave no trace), and its header names only the compiler version, the same on both sides.
# JOBS (default 2) sets the parallel NVRTC compiles.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 BASE_REV [BUILD_DIR]" >&2
  exit 2
fi
base_rev=$1
root=$(git rev-parse --show-toplevel)
build=$(realpath "${2:-$root/build}")
cd "$root"

cmake --build "$build" --target gemmtune-template-ptx -j"${JOBS:-2}" >/dev/null
tool=$(find "$build" -name gemmtune-template-ptx -type f -perm -u+x | head -n 1)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/base"
git archive "$base_rev" kernel_templates | tar -x -C "$work/base"
(cd "$work/base" && cmake -DIN=kernel_templates/sgemm.cuh -DOUT="$work/base.cuh" -P "$root/cmake/JoinTemplate.cmake")
cmake -DIN=kernel_templates/sgemm.cuh -DOUT="$work/tree.cuh" -P cmake/JoinTemplate.cmake

results=(results/nvidia-h100-80gb-hbm3.json results/nvidia-h200.json)
for side in base tree; do
  echo "== $side"
  "$tool" --template "$work/$side.cuh" --out "$work/ptx-$side" --arch sm_90 --arch sm_80 \
    --jobs "${JOBS:-2}" "${results[@]}"
done

compared=$(find "$work/ptx-base" -name '*.ptx' | wc -l)
if diff -r -q "$work/ptx-base" "$work/ptx-tree"; then
  echo "identical: $compared PTX files (configs x architectures), 0 differing ($base_rev vs working tree)"
else
  differing=$(diff -r -q "$work/ptx-base" "$work/ptx-tree" | wc -l)
  echo "DIFFERENT: $differing of $compared PTX files differ ($base_rev vs working tree)" >&2
  exit 1
fi
