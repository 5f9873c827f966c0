#!/usr/bin/env bash
# Long fuzzing runs (scripts/test.sh only runs each target briefly): every target in build-fuzz, one
# after the other, for SECONDS each (default 600), starting from its seed corpus. The growing corpus
# stays in build-fuzz/fuzz-corpus/<target>, so runs add up; logs go to build-fuzz/fuzz-logs/, crash
# inputs to build-fuzz/fuzz-artifacts/. The last lines of each log give the figures for
# docs/fuzzing.md. Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(fuzz_results fuzz_kernel_config fuzz_device_profile fuzz_compile_cache fuzz_sizes fuzz_search_space
           fuzz_seed_configs fuzz_tuning_log)
fi
mkdir -p build-fuzz/fuzz-logs build-fuzz/fuzz-artifacts
for t in "${targets[@]}"; do
  mkdir -p "build-fuzz/fuzz-corpus/$t"
  echo "$(date -u +%FT%TZ) $t: ${seconds} s"
  status=0
  build-fuzz/tests/fuzz/"$t" -max_total_time="$seconds" -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="build-fuzz/fuzz-artifacts/$t-" "build-fuzz/fuzz-corpus/$t" "tests/fuzz/corpus/$t" \
    >"build-fuzz/fuzz-logs/$t.log" 2>&1 || status=$?
  grep -E '^#[0-9]+[[:space:]]+DONE|^stat::|SUMMARY|ERROR|runtime error' "build-fuzz/fuzz-logs/$t.log" | tail -8 || true
  if ((status != 0)); then echo "$t: exit status $status (see build-fuzz/fuzz-logs/$t.log)"; fi
done
