#!/usr/bin/env bash
# Session 40's third device call (H200): which kernel racecheck's hardware exception comes from.
# One pretranspose config and the same tile in nt through the tuner, racecheck on the copy alone,
# on the GEMM alone, and on the GEMM without copies before it.
set -uo pipefail
export GEMMTUNE_CACHE_DIR=/tmp/gc
B=.device-build; T0=$SECONDS; D=scripts/spikes/pretranspose
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
tune() { $B/tuner/gemm-tune --results-dir /tmp/r$RANDOM --space $D/$1 --strategy exhaustive --sizes $2 --no-warm-start "${@:3}"; }
tune one-pt.json 520x2048x264:tf32 > $OUT/plain-pt.log 2>&1; echo "plain pt rc $?"
tune one-nt.json 520x2048x264:nt:tf32 > $OUT/plain-nt.log 2>&1; echo "plain nt rc $?"
for run in "pt kns=wgmma_transpose one-pt.json 520x2048x264:tf32" "pt kns=wgmma_gemm one-pt.json 520x2048x264:tf32" \
           "nt kns=wgmma_gemm one-nt.json 520x2048x264:nt:tf32"; do
  set -- $run
  timeout 120 $CS --tool racecheck --kernel-name $2 --error-exitcode 9 $B/tuner/gemm-tune --results-dir /tmp/r$RANDOM \
    --space $D/$3 --strategy exhaustive --sizes $4 --no-warm-start --eval-timeout 100 > $OUT/rc-$1-${2#kns=}.log 2>&1
  echo "racecheck $1 $2 rc $? at $((SECONDS - T0)) s"
  grep -E "SUMMARY|Error|error|hazard" $OUT/rc-$1-${2#kns=}.log | head -5
done
