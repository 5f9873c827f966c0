#!/usr/bin/env bash
# Issue #21's benchmark of the search from scratch, on the GPU machine (through the device tool):
# what a new user sees. Three runs of `gemm-tune --gpu 0`, each with an empty results directory
# (so no results of any GPU are visible to it), then each run's winners raced against the shipped
# ones by `cross` in one process:
#   cold   512,1024,4096 with an empty compile cache
#   warm   the same sizes again over the cache the cold run left
#   cold2  2048, 8192 and the three skinny shapes with another empty cache
# Prints wall times and peak memory, the winners' `cross` table (the shipped winner as % of ours)
# and where each problem's time went (wall, waiting for NVRTC, GPU) with the candidates measured
# per second.
# SETS="cold2" runs only the named runs (a warm run needs its cold one). WARM_RUNS=3 makes three warm
# runs, each over its own copy of the cache the cold run left (a rerun adds to the cache it reads, so
# reruns over one cache are not alike). JOBS=2 CORES=0,1 runs the searches as on a 2-core machine
# (taskset). TUNE_ARGS="--budget 240" adds options to every search. Work files under $WORK (default
# /tmp/fresh-user).
#   scripts/fresh-user-bench.sh [BUILD_DIR]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=${1:-$([ -d .device-build ] && echo .device-build || echo build)}
tool=$build/tuner/gemm-tune
shipped=results/nvidia-h100-80gb-hbm3.json
work=${WORK:-/tmp/fresh-user}
rm -rf "$work" && mkdir -p "$work"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
run() {  # name cache-dir sizes
  # Wall time, and the peak resident memory of the largest process (the tuner with its NVRTC threads,
  # or its GPU worker): --jobs pressing and as many speculative compiles share the tuner's memory.
  python3 - "$1" "$work/$1.log" timeout 300 ${CORES:+taskset -c "$CORES"} "$tool" --gpu 0 \
    -j "${JOBS:-$(nproc)}" --sizes "$3" --cache-dir "$work/$2" --results-dir "$work/$1" --log-level debug ${TUNE_ARGS:-} <<'PY'
import resource, subprocess, sys, time
start = time.time()
with open(sys.argv[2], "w") as log:
    rc = subprocess.call(sys.argv[3:], stdout=log, stderr=subprocess.STDOUT)
peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"{sys.argv[1]}: exit {rc}, {time.time() - start:.1f} s, peak memory {peak_mib:.0f} MiB")
PY
  grep -A12 "^problem" "$work/$1.log"
  timeout 100 "$tool" cross --gpu 0 --from "$shipped" --results-dir "$work/$1" --cache-dir "$work/$2" \
    > "$work/$1.cross" 2>&1
  grep -E "%|portability" "$work/$1.cross"
  # cross gives the shipped winner as a percentage of ours; the target reads the other way round.
  python3 - "$work/$1.cross" <<'PY'
import re, sys
rows = [(m.group(1), 10000 / float(m.group(2)))
        for m in re.finditer(r"^\S+\s+(\S+)\s+\S+\s+[\d.]+\s+([\d.]+)%$", open(sys.argv[1]).read(), re.M)]
if rows:
    low = min(rows, key=lambda r: r[1])
    print("  ours as % of the shipped winner: " + ", ".join(f"{p} {v:.1f}%" for p, v in rows) +
          ("" if low[1] >= 98 else f"   <-- {low[0]} is more than 2% short"))
PY
  python3 - "$work/$1" <<'PY'
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/nvidia-*.json"):
    if "/cross-" in f:
        continue
    for e in json.load(open(f))["entries"]:
        s = e["search"]
        measured = s["evaluated"] + s.get("launch_variants", 0)
        print(f"  {e['m']}x{e['n']}x{e['k']}: {s['wall_seconds']:.1f} s, waiting for NVRTC "
              f"{s['compile_wait_seconds']:.1f} s, GPU {s['benchmark_seconds']:.1f} s; "
              f"{s['evaluated']} proposed + {s.get('launch_variants', 0)} launch variants = "
              f"{measured / s['wall_seconds']:.1f} candidates/s")
PY
}
# Each compile cache is named after the run that fills it, so no cold run can start from another's.
sets=${SETS:-cold warm cold2}
[[ " $sets " == *" cold "* ]] && run cold cold-cache 512,1024,4096
if [[ " $sets " == *" warm "* ]]; then
  warm_runs=${WARM_RUNS:-1}
  if (( warm_runs == 1 )); then
    run warm cold-cache 512,1024,4096
  else
    for i in $(seq "$warm_runs"); do cp -a "$work/cold-cache" "$work/warm$i-cache"; done
    for i in $(seq "$warm_runs"); do run "warm$i" "warm$i-cache" 512,1024,4096; done
  fi
fi
[[ " $sets " == *" cold2 "* ]] && run cold2 cold2-cache 2048,8192,64x4096x4096,4096x4096x64,4096x64x4096
date -u
