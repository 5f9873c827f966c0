#!/bin/bash
# Runs on the GPU machine with the prebuilt binaries beside it in the carried folder
# build-carry-hopper/ (the device tool sends the lead's checkout, not this worktree, so the script
# travels there too: build.sh copies it). Writes the logs to $OUT and prints a short summary last.
# Usage: bash build-carry-hopper/run.sh [rounds] [m,n,k ...]
set -u
B=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/hopper-out}
mkdir -p "$O"
date -u +"%F %T UTC" | tee "$O/env.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu \
  --format=csv >>"$O/env.txt" 2>&1
cat "$O/env.txt"
# SASS: the wgmma kernels must show HGMMA (not HMMA).
cuobjdump -sass "$B/bench" >"$O/sass.txt" 2>&1
awk '/Function :/ {f=$3} /HGMMA/ {n[f]++} /HMMA/ && !/HGMMA/ {h[f]++} END {for (k in n) print "HGMMA", n[k], "HMMA", h[k]+0, k}' \
  "$O/sass.txt" | tee "$O/sass_counts.txt"
echo "HGMMA total: $(grep -c HGMMA "$O/sass.txt")"
rounds=${1:-30}
shift || true
# A quick pass first: a variant that hangs (a barrier protocol bug) must not cost the whole run.
timeout 30 "$B/bench" 1 1000,1000,1000 4095,4097,4096 >"$O/quick.txt" 2>&1
q=$?
echo "quick pass exit: $q"
if [ $q -ne 0 ]; then
  tail -n 5 "$O/quick.txt"
  export BENCH_SKIP=${BENCH_SKIP:-cl2}
  echo "skipping variants named *$BENCH_SKIP*"
fi
timeout 200 "$B/bench" "$rounds" "$@" >"$O/bench.txt" 2>&1
echo "bench exit: $?"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv \
  >>"$O/env.txt" 2>&1
# Reference point: PyTorch's bf16 matmul (bf16 out), as KINDS.md quotes it for this kind.
timeout 60 python3 - >"$O/torch.txt" 2>&1 <<'PY'
import torch
for n in (4096, 8192):
    a = torch.rand(n, n, device="cuda", dtype=torch.bfloat16) * 2 - 1
    b = torch.rand(n, n, device="cuda", dtype=torch.bfloat16) * 2 - 1
    for _ in range(5):
        a @ b
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(30):
        e0.record(); a @ b; e1.record(); torch.cuda.synchronize(); ts.append(e0.elapsed_time(e1))
    ts.sort()
    print(f"torch bf16 matmul {n}^3 (bf16 out): {2 * n**3 / ts[15] / 1e9:.1f} TFLOP/s (median of 30)")
PY
cat "$O/torch.txt"
if [ -n "${SANITIZE:-}" ]; then
  timeout 60 compute-sanitizer --tool memcheck "$B/bench" 1 1000,1000,1000 >"$O/memcheck.txt" 2>&1
  echo "memcheck exit: $?; $(grep -E 'ERROR SUMMARY' "$O/memcheck.txt")"
fi
grep -v '^csv' "$O/bench.txt" | tail -n 40
