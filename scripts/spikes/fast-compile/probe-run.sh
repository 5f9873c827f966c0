#!/usr/bin/env bash
# Issue #47 spike: NVRTC's --Ofast-compile=mid compiles an sgemm candidate in a quarter of the time
# with other code. Does a search that screens on such binaries rank the candidates as the full
# compiles do? Exhaustive over probe-space.json (304 binaries at 2048, 376 at 4096) with the
# tuner's options and with the extra option (a gemm-tune built with the spike's hook:
# GEMMTUNE_SPIKE_NVRTC_EXTRA appended to the NVRTC options, and so to the cache key), each from an
# empty cache; the tuning logs and debug logs go to $OUT/probe.tgz, compared by probe_compare.py.
#   EXE=gemm-tune-with-hook scripts/spikes/fast-compile/probe-run.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${EXE:?the gemm-tune with the hook}" "${OUT:=/tmp/probe-out}"
w=$(mktemp -d); T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1; date -u +%FT%TZ
run() {  # name size extra
  mkdir -p "$w/$1"
  GEMMTUNE_SPIKE_NVRTC_EXTRA=$3 GEMMTUNE_CACHE_DIR=$w/$1/cache "$EXE" --gpu 0 --sizes "$2" --strategy exhaustive \
    --space "$here/probe-space.json" --results-dir "$w/$1/r" --log-level debug > "$w/$1.log" 2>&1
  echo "$1 rc $? at $((SECONDS - T0)) s: $(grep -o 'compile pool.*thread-seconds ([0-9.]* s a compile' "$w/$1.log")"
  grep -A2 "^problem" "$w/$1.log" | cut -c1-120
  cp "$w/$1/r/logs/"*.jsonl "$w/$1.jsonl"; rm -rf "$w/$1"
}
for size in 2048 4096; do
  run "full-$size" $size ""
  run "mid-$size" $size "--Ofast-compile=mid"
done
run "max-4096" 4096 "--Ofast-compile=max"
tar czf "$OUT/probe.tgz" -C "$w" . && rm -rf "$w"
