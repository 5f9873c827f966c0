#!/usr/bin/env bash
# On the GPU machine, over what scripts/stage-python-device.sh staged (run from the checkout's root,
# the staged folder carried): runtime_gpu_tests (RT_FILTER), the Python GPU tier with the staged
# package installed (PY_FILES, PY_K), and python/benchmarks/torch_bench.py (BENCH_ARGS) with a
# summary of its JSON. Logs and bench.json go under $OUT. Usage: bash build-carry-python/device-python.sh
# [runtime|pytest|bench|all]
set -uo pipefail
here=$(basename "$(dirname "$0")")
: "${OUT:=/tmp/out}"; mkdir -p "$OUT"
export GEMMTUNE_CACHE_DIR=/tmp/gemmtune-cache PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD/$here/site GEMMTUNE_TEST_INSTALLED=1
export LD_LIBRARY_PATH=$PWD/$here/site/gemmtune/lib:${LD_LIBRARY_PATH:-}
start=$(date +%s)
stamp() { echo "== $1 at +$(( $(date +%s) - start )) s"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
date -u | tee -a "$OUT/gpu.txt"
MODE=${1:-all}
if [[ $MODE == *runtime* || $MODE == all ]]; then
  stamp runtime_gpu_tests
  timeout "${RT_TIMEOUT:-80}" "./$here/bin/runtime_gpu_tests" --gtest_filter="${RT_FILTER:-RuntimeGpu.*}" > "$OUT/runtime.log" 2>&1
  echo "rc=$?" >> "$OUT/runtime.log"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|FAILED|Failure|error|rc=" "$OUT/runtime.log" | head -40
fi
if [[ $MODE == *pytest* || $MODE == all ]]; then
  stamp pytest
  files=()
  # shellcheck disable=SC2086 # PY_FILES is a list of names
  for f in ${PY_FILES:-test_gpu.py}; do files+=("$here/tests/python/$f"); done
  timeout "${PY_TIMEOUT:-90}" python3 -m pytest -q -p no:cacheprovider -rs "${files[@]}" ${PY_K:+-k "$PY_K"} > "$OUT/pytest.log" 2>&1
  echo "rc=$?" >> "$OUT/pytest.log"
  tail -30 "$OUT/pytest.log"
fi
if [[ $MODE == *bench* || $MODE == all ]]; then
  stamp bench
  # shellcheck disable=SC2086 # BENCH_ARGS is a list of arguments
  timeout "${BENCH_TIMEOUT:-170}" python3 "$here/torch_bench.py" ${BENCH_ARGS:---rounds 10 --tune-seconds 8} --json "$OUT/bench.json" > "$OUT/bench.log" 2>&1
  echo "rc=$?" >> "$OUT/bench.log"
  grep -v "^\[\|^ \|^{\|^}" "$OUT/bench.log" | tail -15
  python3 - "$OUT/bench.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print("no bench.json", e); sys.exit()
print("host", {k: round(v, 2) for k, v in r.get("host_us_per_call_64cube", {}).items()}, "over", round(r.get("gemmtune_mm_over_torch_mm_us", 0), 2))
print("linear64 host", {k: round(v, 2) for k, v in r.get("host_us_per_call_linear_64", {}).items()}, r.get("explain_linear_64"))
print("linear64 pieces", {k: round(v, 2) for k, v in r.get("host_us_linear_64_pieces", {}).items()})
print("linear64 bf16 host", {k: round(v, 2) for k, v in r.get("host_us_per_call_linear_64_bf16", {}).items()})
red = r.get("reductions", {})
if red:
    print("reductions: worst error/bound", {k: round(max(v[k] for v in red.values()), 3) for k in
          ("torch.mm, reduced-precision reduction allowed", "torch.mm, not allowed", "gemmtune.mm")},
          "torch's two always bit-equal", all(v["torch's two bit-equal"] for v in red.values()))
print("linear by K", {k: {n: round(x, 1) for n, x in v.items()} for k, v in r.get("linear_by_k", {}).items()})
for sec in ("mlp_inference", "mlp_inference_after_tuning"):
    for label, v in r.get(sec, {}).items():
        print(sec, label, "ms torch", round(v["ms_torch"], 4), "gemmtune", round(v["ms_gemmtune"], 4), "graph", round(v["graph_ms_torch"], 4), v["graph_ms_gemmtune"] and round(v["graph_ms_gemmtune"], 4), "maxerr/bound", round(v["error_over_bound_gemmtune"], 8), "torch", round(v["error_over_bound_torch"], 8))
        print(sec, label, "eager", round(v["speedup"], 3), "lib", round(v["speedup_library"], 3), "graph", v["graph_speedup"] and round(v["graph_speedup"], 3), "err", v["graph_capture_errors"], v["layers"], "host", {k: round(x, 1) for k, x in v["host_us_per_forward"].items()})
p = r.get("precisions", {})
print("precisions host 64^3 us", {k: round(v, 2) for k, v in p.get("host_us_64cube", {}).items()})
for shape, v in p.get("gpu_us", {}).items():
    print("precisions", shape, {k: round(x, 1) for k, x in v.items()}, p["config"].get(shape))
for sec in ("layers", "layers_after_tuning"):
    for label, v in r.get(sec, {}).items():
        print(sec, label, v["config"][:40], {k: round(x, 1) for k, x in v["us"].items()}, "host", {k: round(x, 1) for k, x in v["host_us"].items()})
PY
fi
stamp finished
