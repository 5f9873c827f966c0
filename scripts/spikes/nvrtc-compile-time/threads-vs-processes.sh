#!/usr/bin/env bash
# Issue #47: a compile takes 0.94 s alone and 1.8 s beside 15 others in one process. Is that the
# cores (clock, memory: a CPU-only control shows it) or one process's threads (N processes of one
# thread each show it)? Runs on a machine without a GPU; prints one line a case.
#   scripts/spikes/nvrtc-compile-time/threads-vs-processes.sh NVRTC_COMPILE_TIME RESULTS_JSON [COUNTS]
set -uo pipefail
exe=$1 results=$2 counts=${3:-"8 16 32"}
lscpu | grep -E "^(Model name|Thread|Core|Socket|CPU\(s\)|L3)" | tr -s ' '
# The CPU alone: N copies of one fixed hash at once; the seconds of each against one alone.
cpu() {  # n
  local t0=$SECONDS s
  s=$( { for i in $(seq "$1"); do ( /usr/bin/time -f %e sh -c 'head -c 1500000000 /dev/zero | sha256sum >/dev/null' ) 2>&1 & done; wait; } |
      awk '{s+=$1; n++} END {printf "%.2f", s/n}')
  echo "cpu: $1 at once: $s s each"
}
# N processes of one thread, each compiling `per` different binaries: their mean seconds a compile.
procs() {  # n per
  local out; out=$(mktemp -d)
  for i in $(seq 0 $(($1 - 1))); do "$exe" "$results" "$2" 1 plain sm_90 $((i * $2)) > "$out/$i" 2>&1 & done
  wait
  cat "$out"/* | grep -o 'mean [0-9.]*' | awk -v n="$1" '{s+=$2; k++} END {printf "nvrtc: %d processes x 1 thread: %.3f s a compile (%d reporting)\n", n, s/k, k}'
  rm -rf "$out"
}
threads() {  # n per
  "$exe" "$results" $(($1 * $2)) "$1" plain sm_90 | tail -1 | sed "s/^/nvrtc: 1 process x $1 threads: /"
}
cpu 1
for n in $counts; do cpu "$n"; done
threads 1 8
for n in $counts; do
  per=$(( 128 / n )); [ "$per" -gt 4 ] && per=4
  threads "$n" "$per"
  procs "$n" "$per"
done
