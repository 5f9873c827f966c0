#!/bin/bash
# Builds the spike on the CPU machine (no GPU needed) into DEST (default: the lead's checkout's
# ignored build-carry-hopper/, which the device tool carries), checks NVRTC compiles the kernel for
# sm_90a without spills, and copies run.sh beside the binaries.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
DEST=${DEST:-/work/main/build-carry-hopper}
mkdir -p "$DEST"
NVCC=/usr/local/cuda/bin/nvcc
g++ -O1 -std=c++17 -I/usr/local/cuda/include "$here/nvrtc_check.cpp" -o "$DEST/nvrtc_check" -L/usr/local/cuda/lib64 -lnvrtc
LD_LIBRARY_PATH=/usr/local/cuda/lib64 "$DEST/nvrtc_check" "$here" >"$DEST/nvrtc_check.txt"
tail -n 1 "$DEST/nvrtc_check.txt"
$NVCC -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -o "$DEST/bench" "$here/bench.cu" -lcublas -lcublasLt \
  >"$DEST/ptxas.txt" 2>&1
grep -E "warning|error" "$DEST/ptxas.txt" || true
grep -B2 "registers" "$DEST/ptxas.txt" | grep -E "wgmma_gemm|registers|spill" | paste - - - | grep wgmma_gemm \
  | sed -E 's/.*wgmma_gemmILi([0-9]+)ELi([0-9]+)ELi([0-9]+)ELi([0-9]+)ELi([0-9]+)E.*(Used [0-9]+ registers).*/type \1 \2x\3 s\4 c\5: \6/'
grep -E "spill" "$DEST/ptxas.txt" | sort | uniq -c
cp "$here/run.sh" "$DEST/run.sh"
