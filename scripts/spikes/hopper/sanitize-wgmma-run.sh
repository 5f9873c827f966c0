#!/usr/bin/env bash
# compute-sanitizer over the wgmma family only (--kernel-name kns=wgmma_gemm: cuBLAS's contestant
# kernels, whose racecheck alone ran past 300 s on 2026-11-27, are not instrumented): racecheck,
# memcheck and synccheck over the tuner's check (every precision, nt and the MN-major layouts,
# split-K 4 among them).
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
# Compile first, uninstrumented, so the tools time kernels rather than NVRTC.
timeout 200 $B/tests/gpu_tests --gtest_brief=1 --gtest_filter='Wgmma.PassesTheTunersCheck' > $OUT/plain.log 2>&1
echo "plain rc $? at $((SECONDS - T0)) s"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
for tool in racecheck memcheck synccheck; do
  left=$((570 - (SECONDS - T0))); [ $left -gt 20 ] || break
  timeout $left $CS --tool $tool --kernel-name kns=wgmma_gemm --error-exitcode 9 $B/tests/gpu_tests --gtest_brief=1 \
    --gtest_filter='Wgmma.PassesTheTunersCheck' > $OUT/cs-$tool.log 2>&1
  echo "$tool rc $? at $((SECONDS - T0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|Error" $OUT/cs-$tool.log | head -6
done
