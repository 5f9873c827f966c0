#!/usr/bin/env bash
# Session 45 (one H200; .device-build carried with the previous tuner beside the new one as
# tuner/gemm-tune-old): the wgmma epilogue's 16-byte stores of a 16-bit C. The c16 correctness tests
# first, then the same 12 candidates a shape (wgmma-c16-ab.json) raced exhaustively by the old and the
# new tuner in turn, shape by shape, each with its own compile cache; the per-candidate medians of
# both logs side by side.
set -uo pipefail
B=.device-build; T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
[ "${SKIP_TESTS:-0}" = 1 ] || GEMMTUNE_CACHE_DIR=/tmp/gc timeout 200 $B/tests/gpu_tests \
  --gtest_filter='Wgmma.SixteenBitC:Wgmma.PassesTheTunersCheck:TensorCores.SixteenBitCEveryLayoutSplitAndBatch' \
  > $OUT/gpu_tests_c16.log 2>&1
[ "${SKIP_TESTS:-0}" = 1 ] || echo "c16 tests rc $? at $((SECONDS - T0)) s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|Failure" $OUT/gpu_tests_c16.log | head
SIZES=${SIZES:-4096x4096x64,1024,2048,4096,512x11008x4096}
for size in ${SIZES//,/ }; do
  for which in old new; do
    tuner=$B/tuner/gemm-tune; [ $which = old ] && tuner=$B/tuner/gemm-tune-old
    GEMMTUNE_CACHE_DIR=/tmp/gc-$which timeout 120 $tuner --results-dir $OUT/$which --strategy exhaustive \
      --space scripts/spikes/c16/wgmma-c16-ab.json --sizes $size:bf16:c16 --no-warm-start -j16 --top 12 \
      >> $OUT/race-$which.log 2>&1
    echo "$size $which rc $? at $((SECONDS - T0)) s"
  done
done
python3 - "$OUT" <<'PY'
import glob, json, sys
def medians(which):
    out = {}
    for f in glob.glob(f"{sys.argv[1]}/{which}/logs/*.jsonl"):
        for line in open(f):
            if line.strip():
                e = json.loads(line)
                if e.get("type") == "evaluation" and e.get("status") == "ok":
                    out[(f"{e['m']}x{e['n']}x{e['k']}", e["name"])] = e["median_ms"] * 1e3
    return out
old, new = medians("old"), medians("new")
print(f"{'shape':16} {'candidate':44} {'old us':>9} {'new us':>9} {'old/new':>8}")
for key in sorted(set(old) & set(new)):
    print(f"{key[0]:16} {key[1]:44} {old[key]:9.2f} {new[key]:9.2f} {old[key] / new[key]:8.3f}")
for shape in sorted({k[0] for k in old}):
    o = min(v for k, v in old.items() if k[0] == shape); n = min(v for k, v in new.items() if k[0] == shape)
    print(f"best at {shape}: old {o:.2f} us, new {n:.2f} us, {o / n:.3f}x")
PY
grep -A8 "^problem" $OUT/race-new.log | grep -v "^--" | cut -c1-150
date -u +%FT%TZ
