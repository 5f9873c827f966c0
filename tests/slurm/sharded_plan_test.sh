#!/usr/bin/env bash
# A sharded `gemm-tune plan` over a real Slurm array job, run inside the test cluster:
#   tests/slurm/slurm_cluster.sh -- bash tests/slurm/sharded_plan_test.sh [GEMM_TUNE_BINARY]
# The binary is the argument, else $GEMMTUNE_BIN, else build/tuner/gemm-tune. A four-task array
# (sbatch --wait --array=0-3) plans six sizes with no --shard: each task must take its share from
# SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT alone (sizes i, i+4, ...) and write its own plan;
# `gemm-tune merge` combines the four; one unsharded plan of the same sizes must then agree with
# the merged one problem for problem: the same ranked candidates, in the same order, with the same
# predictions (dates, paths and compile timings aside). A small search space keeps NVRTC's work to
# seconds on two cores; the elapsed time is printed at the end.
set -euo pipefail
: "${SLURM_CONF:?run me through tests/slurm/slurm_cluster.sh}"
: "${SLURM_CLUSTER_WORKDIR:?run me through tests/slurm/slurm_cluster.sh}"
start=$SECONDS
bin="${1:-${GEMMTUNE_BIN:-build/tuner/gemm-tune}}"
[ -x "$bin" ] || {
  echo "FAIL: no gemm-tune binary at '$bin' (build it, or pass its path / set GEMMTUNE_BIN)" >&2
  exit 1
}
bin="$(realpath "$bin")"
work="$SLURM_CLUSTER_WORKDIR/sharded_plan"
mkdir -p "$work"
sizes=64,96,128,192,256,320

# 16 binaries in all: 3 block shapes a side, 2 thread tiles, split-k 1, 2 or 4, with and without
# cp.async; enough that the ranking differs between the sizes.
cat >"$work/space.json" <<'SPACE'
{
  "schema": "gemmtune.search-space/1",
  "kernel": "sgemm",
  "description": "A small space for the sharded plan test (tests/slurm/sharded_plan_test.sh).",
  "parameters": {
    "block_m": [32, 64, 128], "block_n": [32, 64, 128], "block_k": [8],
    "thread_m": [4, 8], "thread_n": [4], "warp_rows": [4], "pad_a": [4], "pad_b": [0],
    "stages": [2], "async_copy": [false, true], "transpose_a": [false], "vector_width": [4],
    "min_blocks": [1], "fma_order": [1], "swizzle": [1], "split_k": [1, 2, 4],
    "split_k_atomic": [false, true]
  },
  "constraints": {
    "divisibility": {}, "architecture": {}, "thread_count": {"min": 64, "max": 512},
    "micro_tile": {"max_outputs": 128, "max_aspect": 2}, "shared_memory": {},
    "register_estimate": {"overhead": 28},
    "load_balance": {"max_tile_waste": 0.5, "min_k_per_split": 32, "split_k_max_waves": 1.0},
    "no_effect": {}
  }
}
SPACE

# The task: no --shard, so the shard can only come from Slurm's environment.
cat >"$work/task.sh" <<'TASK'
#!/usr/bin/env bash
set -eu
bin="$1" work="$2" sizes="$3"
"$bin" plan --gpu h100 --sizes "$sizes" -j 1 --top 3 --no-cache --space "$work/space.json" \
  -o "$work/plan-$SLURM_ARRAY_TASK_ID.json"
TASK

if ! timeout 600 sbatch --wait --array=0-3 --ntasks=1 --cpus-per-task=1 --job-name=sharded-plan \
  --chdir="$work" --output="$work/slurm-%A_%a.out" "$work/task.sh" "$bin" "$work" "$sizes"; then
  echo "FAIL: the array job did not succeed" >&2
  tail -n +1 "$work"/slurm-*.out >&2 || true
  exit 1
fi
echo "array job done after $((SECONDS - start)) s"

(cd "$work" && "$bin" merge -o merged.json plan-0.json plan-1.json plan-2.json plan-3.json)
"$bin" plan --gpu h100 --sizes "$sizes" -j 1 --top 3 --no-cache --space "$work/space.json" \
  -o "$work/single.json" >"$work/single.out" 2>&1 || {
  cat "$work/single.out" >&2
  echo "FAIL: the unsharded plan failed" >&2
  exit 1
}

python3 - "$work" "$sizes" <<'CHECK'
import json, sys
work, sizes = sys.argv[1], [int(s) for s in sys.argv[2].split(",")]
def load(name):
    with open(f"{work}/{name}") as f:
        return json.load(f)
def problems(plan):
    # What a plan decides, without dates, paths or timings.
    return {(p["m"], p["n"], p["k"]): {key: p[key] for key in ("enumerated", "passed_constraints", "ranked_count",
                                                                "rejected_after_compile", "ranked")}
            for p in plan["problems"]}
failures = []
for task in range(4):
    got = sorted(p["m"] for p in load(f"plan-{task}.json")["problems"])
    want = sorted(sizes[task::4])
    if got != want:
        failures.append(f"task {task} planned {got}, expected its shard {want}")
merged, single = load("merged.json"), load("single.json")
m, s = problems(merged), problems(single)
if set(m) != set(s):
    failures.append(f"merged plan has problems {sorted(m)}, unsharded {sorted(s)}")
for key in sorted(set(m) & set(s)):
    if m[key] != s[key]:
        names = lambda p: [(r["rank"], r["name"], r["predicted_tflops"]) for r in p["ranked"]]
        failures.append(f"{key}: merged ranks {names(m[key])}, unsharded {names(s[key])}")
if merged["device"]["slug"] != single["device"]["slug"]:
    failures.append("merged and unsharded plans name different GPUs")
if len(merged.get("merged_files", [])) != 4:
    failures.append("merged plan does not list its four files")
for line in failures:
    print("FAIL:", line, file=sys.stderr)
if failures:
    sys.exit(1)
print(f"{len(s)} problems: merged shards agree with the unsharded plan; rank 1: " +
      ", ".join(f"{k[0]}={v['ranked'][0]['name']}" for k, v in sorted(s.items())))
CHECK
echo "PASS: sharded plan over a 4-task array merged to the unsharded plan in $((SECONDS - start)) s"
