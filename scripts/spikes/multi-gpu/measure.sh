#!/usr/bin/env bash
# The issue #47 benchmark (docs/multi-gpu.md), on a machine with 4 GPUs: eight problems at
# --budget 120 --seed 1 on 1, 2 and 4 GPUs, cold (an empty compile cache each) and warm (a copy of
# what the cold runs compiled), each run with an empty results directory and --log-level debug;
# then a kill -9 of a 4-GPU run (the whole process group, 4.5 s in) and its resume, checked by
# check_resume.py. Logs, results and summary.txt go to $OUT (default /tmp/multi-gpu).
# With BEFORE=<another gemm-tune>, the warm run on all GPUs is repeated twice, that binary's and this
# one's in turn, over copies of the same warm cache (a change compared on one machine).
# With BEFORE and COLD_AB=1, only cold runs are compared instead (nothing else runs): for each GPU
# count in COLD_GPUS (default "1 4"; about 130 s a count on 4 x H100), that binary's run and this
# one's in turn, each over an empty cache; summary.txt gets each run's compiles and schedule, and
# winners.txt each run's table.
# GPUS (default "1 2 4") picks the GPU counts of the cold and warm runs: "1 2" on a 2-GPU host.
#   [GPUS="1 2"] [BEFORE=gemm-tune-before [COLD_AB=1 [COLD_GPUS="1 2 4"]]] scripts/spikes/multi-gpu/measure.sh [GEMM_TUNE]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:-$here/../../../build/tuner/gemm-tune}")
: "${OUT:=/tmp/multi-gpu}"
work=$(mktemp -d)
mkdir -p "$OUT"
SIZES=512,1000,1024,2048,3000,4096,64x4096x4096,4096x4096x64
nvidia-smi --query-gpu=index,name,driver_version --format=csv | tee "$OUT/machine.txt"
tune() {  # name gpus cache [binary]
  local name=$1 gpu=$2 cache=$3 exe=${4:-$bin} t0 t1 rc
  mkdir -p "$work/r-$name"
  t0=$(date +%s.%N)
  GEMMTUNE_CACHE_DIR=$cache "$exe" --gpu "$gpu" --sizes $SIZES --budget 120 --seed 1 \
    --results-dir "$work/r-$name" --log-level debug > "$OUT/$name.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  printf "%-8s rc %d  %.1f s\n" "$name" $rc "$(python3 -c "print($t1 - $t0)")" | tee -a "$OUT/summary.txt"
}
# The debug lines' compiles and schedule, and the summary table, of a run's log.
tally() {  # name
  local log="$OUT/$1.log"
  printf "%-16s %s; %s\n" "$1" "$(grep -o '[0-9]* compiles ([0-9]* failed)' "$log" | head -1)" \
    "$(grep -o 'schedule [0-9.]* s' "$log" | head -1)" | tee -a "$OUT/summary.txt"
  { echo "== $1"; sed -n '/^problem /,/^results:/p' "$log"; } >> "$OUT/winners.txt"
}
gpus_of() { case $1 in 1) echo 0 ;; 2) echo 0,1 ;; 4) echo all ;; *) echo "GPU counts: 1, 2 or 4" >&2; return 2 ;; esac; }
if [ -n "${BEFORE:-}" ] && [ "${COLD_AB:-}" = 1 ]; then
  run=0  # a count repeated in COLD_GPUS gets caches and logs of its own
  for n in ${COLD_GPUS:-1 4}; do
    g=$(gpus_of $n) || exit 2
    run=$((run + 1))
    tune "before-cold$n-$run" "$g" "$work/bc$run" "$(realpath "$BEFORE")" && tally "before-cold$n-$run"
    tune "after-cold$n-$run" "$g" "$work/ac$run" && tally "after-cold$n-$run"
  done
  rm -rf "$work"
  exit 0
fi
GPUS=${GPUS:-1 2 4}
for n in $GPUS; do tune cold$n "$(gpus_of $n)" "$work/c$n" && tally cold$n; done
mkdir -p "$work/warm"
for n in $GPUS; do cp -n "$work/c$n"/* "$work/warm/" 2>/dev/null; done
for n in $GPUS; do
  cp -r "$work/warm" "$work/w$n"
  tune warm$n "$(gpus_of $n)" "$work/w$n" && tally warm$n
done
if [ -n "${BEFORE:-}" ]; then
  for round in a b; do
    rm -rf "$work/wb" "$work/wa" && cp -r "$work/warm" "$work/wb" && cp -r "$work/warm" "$work/wa"
    tune "before-warmall$round" all "$work/wb" "$(realpath "$BEFORE")"
    tune "after-warmall$round" all "$work/wa"
  done
fi
cp -r "$work/warm" "$work/ck"
mkdir -p "$work/r-kill"
GEMMTUNE_CACHE_DIR=$work/ck setsid "$bin" --gpu all --sizes $SIZES --budget 120 --seed 1 \
  --results-dir "$work/r-kill" --log-level debug > "$OUT/kill-first.log" 2>&1 &
pid=$!
sleep 4.5
kill -9 -- "-$(ps -o pgid= $pid | tr -d ' ')"
wait $pid 2>/dev/null
cp "$work"/r-kill/logs/*.jsonl "$OUT/kill-killed.jsonl"
GEMMTUNE_CACHE_DIR=$work/ck "$bin" --gpu all --sizes $SIZES --budget 120 --seed 1 \
  --results-dir "$work/r-kill" --log-level debug > "$OUT/kill-resume.log" 2>&1
echo "resume rc $?" | tee -a "$OUT/summary.txt"
python3 "$here/check_resume.py" "$OUT/kill-killed.jsonl" "$work"/r-kill/logs/*.jsonl "$work"/r-kill/*.json 8 |
  tee -a "$OUT/summary.txt"
rm -rf "$work"
