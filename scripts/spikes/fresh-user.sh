#!/usr/bin/env bash
# A fresh user's search (empty results directory, cold compile cache) in bf16 and in fp32 (or the
# precisions in $PRECISIONS) over 512,1024,4096, timed, with the shipped winners' TFLOP/s for the
# same GPU printed beside for comparison.
set -uo pipefail
B=${B:-.device-build}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
for p in ${PRECISIONS:-bf16 fp32}; do
  cache=$(mktemp -d); res=$(mktemp -d); start=$(date +%s.%N)
  GEMMTUNE_CACHE_DIR=$cache timeout 200 $B/tuner/gemm-tune --gpu auto --sizes 512,1024,4096 --precision $p \
    --results-dir $res > $OUT/fresh-$p.log 2>&1
  rc=$?
  echo "fresh $p rc $rc: $(python3 -c "import sys,time; print(f'{time.time() - float(sys.argv[1]):.1f}')" $start) s"
  grep -A4 "^problem" $OUT/fresh-$p.log | cut -c1-120
done
shipped=results/$(basename "$(ls $res/*.json | head -1)")  # the GPU's results file (logs lie in logs/)
SHIPPED=$shipped python3 - <<'PY'
import json, os
d = json.load(open(os.environ["SHIPPED"]))
for e in d["entries"]:
    if e["m"] == e["n"] == e["k"] and e["m"] in (512, 1024, 4096) and e.get("layout", "nn") == "nn" \
            and e.get("batch", 1) == 1 and e.get("precision", "fp32") in ("bf16", "fp32"):
        best = e.get("best") or {}
        print("shipped", e.get("precision", "fp32"), e["m"], e["winner"], best.get("name"), round(best.get("tflops", 0), 2),
              "cuBLAS", round((e.get("cublas") or {}).get("tflops", 0), 2))
PY
