#!/usr/bin/env bash
# On the GPU machine: Nsight Compute sections of the m = 32 nn winner (sgemm) and the best tiled nt
# kernel at 32x28672x8192, each the only candidate of a tuner run (its first launch: the check at the
# tuned shape). Reports in $OUT/ncu-<space>.txt. After scripts/stage-device-build.sh.
# First run (2026-11-29, H200) profiled the operand-filling kernel: its name matched "gemmtune" too.
set -u
cd "$(dirname "$0")/../../.."
export GEMMTUNE_CACHE_DIR=${GEMMTUNE_CACHE_DIR:-/tmp/gemmtune-cache}
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for job in profile-sgemm-nn:32x28672x8192 profile-tiled-nt:32x28672x8192:nt; do
  space=${job%%:*}
  timeout 80 "$ncu" --clock-control none --target-processes all --kernel-name-base demangled \
    --kernel-name "regex:(sgemm|tiled)<" --launch-count 1 --section SpeedOfLight --section WarpStateStats \
    --section SchedulerStats --section Occupancy --section LaunchStats --section InstructionStats --section MemoryWorkloadAnalysis \
    ./.device-build/tuner/gemm-tune --results-dir "/tmp/$space" --space "scripts/spikes/decode-nt/$space.json" \
    --strategy exhaustive --sizes "${job#*:}" --no-warm-start --eval-timeout 60 > "$OUT/ncu-$space.txt" 2>&1
  echo "$space: rc=$? $(grep -c "Section:" "$OUT/ncu-$space.txt") sections"
done
