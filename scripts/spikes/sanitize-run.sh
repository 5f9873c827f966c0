#!/usr/bin/env bash
# compute-sanitizer over our kernels only, one gtest filter at a time: SUITES is a list of
# FILTER=KERNEL pairs, KERNEL a substring of the kernels' names (--kernel-name kns=KERNEL leaves
# cuBLAS's contestant kernels and the reference uninstrumented). Each filter runs once without the
# tools first, so NVRTC's compiles land in the cache and the tools time kernels; then each of TOOLS,
# at most PER seconds each, the whole call at most LIMIT seconds.
#   SUITES="TensorCores.EveryPrecisionAndLayoutAtEdgeSizes=mma_gemm" bash scripts/spikes/sanitize-run.sh
set -uo pipefail
export GEMMTUNE_CACHE_DIR=${GEMMTUNE_CACHE_DIR:-/tmp/gc}
B=${B:-.device-build}; T0=$SECONDS; LIMIT=${LIMIT:-570}; PER=${PER:-150}
: "${OUT:=/tmp/out}"; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
$CS --version | tail -1
for suite in ${SUITES:-TensorCores.EveryPrecisionAndLayoutAtEdgeSizes=mma_gemm}; do
  filter=${suite%%=*}; kernel=${suite#*=}; tag=${filter%%.*}-${kernel}
  left=$((LIMIT - (SECONDS - T0))); [ $left -gt 20 ] || break
  timeout $left $B/tests/gpu_tests --gtest_brief=1 --gtest_filter="$filter" > "$OUT/plain-$tag.log" 2>&1
  echo "$filter plain rc $? at $((SECONDS - T0)) s"
  for tool in ${TOOLS:-memcheck racecheck synccheck}; do
    left=$((LIMIT - (SECONDS - T0))); [ $left -gt 20 ] || break
    [ $left -gt $PER ] && left=$PER
    timeout $left $CS --tool $tool --kernel-name kns=$kernel --error-exitcode 9 $B/tests/gpu_tests --gtest_brief=1 \
      --gtest_filter="$filter" > "$OUT/cs-$tag-$tool.log" 2>&1
    echo "  $tool rc $? at $((SECONDS - T0)) s"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|Error|Hazard" "$OUT/cs-$tag-$tool.log" | sort | uniq -c | head -6
  done
done
