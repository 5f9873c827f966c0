#!/usr/bin/env bash
# Smoke test of the Slurm test harness, run inside it:
#   tests/slurm/slurm_cluster.sh -- bash tests/slurm/array_smoke_test.sh
# A four-task array job (sbatch --wait) in which every task writes its SLURM_ARRAY_TASK_ID and
# SLURM_ARRAY_TASK_COUNT to a file of its own; all four files must exist with the right contents.
# That is the contract a sharded `gemm-tune plan` relies on (task i of n takes its share of the
# shapes), and the sharded plan test goes beside this one, started the same way.
set -euo pipefail
: "${SLURM_CONF:?run me through tests/slurm/slurm_cluster.sh}"
: "${SLURM_CLUSTER_WORKDIR:?run me through tests/slurm/slurm_cluster.sh}"
out="$SLURM_CLUSTER_WORKDIR/array_smoke"
mkdir -p "$out"

cat >"$out/task.sh" <<'TASK'
#!/usr/bin/env bash
set -eu
echo "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" >"$1/task-$SLURM_ARRAY_TASK_ID.txt"
TASK

timeout 120 sbatch --wait --array=0-3 --ntasks=1 --cpus-per-task=1 --job-name=array-smoke \
  --chdir="$out" --output="$out/slurm-%A_%a.out" "$out/task.sh" "$out"

failed=0
for i in 0 1 2 3; do
  file="$out/task-$i.txt"
  if [ ! -f "$file" ]; then
    echo "FAIL: task $i wrote no $file" >&2
    failed=1
  elif [ "$(cat "$file")" != "$i/4" ]; then
    echo "FAIL: task $i wrote '$(cat "$file")', expected '$i/4'" >&2
    failed=1
  fi
done
if [ "$failed" -ne 0 ]; then
  tail -n +1 "$out"/slurm-*.out >&2 || true
  exit 1
fi
echo "PASS: array job 0-3 ran all four tasks, each with its index and the count 4"
