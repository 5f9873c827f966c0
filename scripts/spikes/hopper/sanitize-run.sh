#!/usr/bin/env bash
# The wgmma tests, then compute-sanitizer's tools (TOOLS, default memcheck synccheck) over the
# tuner's-check test of the family (every precision, nt and the MN-major layouts).
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build
date -u +%FT%TZ
timeout 200 $B/tests/gpu_tests --gtest_brief=1 --gtest_filter='Wgmma.*' > $OUT/gpu.log 2>&1; echo "gpu_tests Wgmma rc $?"
grep -E "FAILED|PASSED|Failure|tests ran" $OUT/gpu.log | head
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
echo "sanitizer: $CS"
if [ -n "$CS" ]; then
  for tool in ${TOOLS:-memcheck synccheck}; do
    timeout ${LIMIT:-150} $CS --tool $tool --error-exitcode 9 $B/tests/gpu_tests --gtest_brief=1 --gtest_filter='Wgmma.PassesTheTunersCheck' > $OUT/cs-$tool.log 2>&1
    echo "$tool rc $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/cs-$tool.log | head -4
  done
fi
date -u +%FT%TZ
