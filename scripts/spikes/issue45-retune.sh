# Sourced by the spike scripts that re-tune #45's shapes into a copy of a shipped results file on the
# GPU machine and measure what the library delivers over them (needs B, OUT, T0).
#   BENCH, LLM             the 11 benchmark shapes and the 8 LLM projections
#   retune P SIZES SECONDS the built-in spaces over SIZES in precision P, --time-budget 4 a problem
#                          (RETUNE_BUDGET) on RETUNE_GPU (default auto), into $OUT/results, stopped
#                          after SECONDS
#   library P SETS SECONDS gemmtune-heldout over $OUT/results in precision P, the sets SETS
#   shipped_results        copies the results files the library installs into $OUT/results
#   bring_back FILE        leaves $OUT/FILE (the results) beside one tarball of everything else: the
#                          device tool brings back only a few files
BENCH=512,1000,1024,2048,3000,4095,4096,8192,64x4096x4096,4096x64x4096,4096x4096x64
LLM=512x11008x4096,512x4096x11008,512x28672x8192,512x8192x28672,4096x11008x4096,4096x4096x11008,4096x28672x8192,4096x8192x28672
retune() {
  timeout $3 $B/tuner/gemm-tune --gpu ${RETUNE_GPU:-auto} --sizes "$2" --precision $1 --time-budget ${RETUNE_BUDGET:-4} -j16 \
    --results-dir "$OUT/results" > "$OUT/retune-$1.log" 2>&1
  echo "retune $1 rc $? at $((SECONDS - T0)) s"; grep -A20 "^problem" "$OUT/retune-$1.log" | cut -c1-130
}
library() {
  timeout $3 $B/runtime/gemmtune-heldout --results "$OUT/results" --precision $1 --only $2 \
    -o "$OUT/heldout-$1.json" > "$OUT/heldout-$1.log" 2>&1
  echo "heldout $1 rc $? at $((SECONDS - T0)) s"; grep -E "geometric mean" "$OUT/heldout-$1.log"
}
shipped_results() {
  mkdir -p "$OUT/results" && cp results/nvidia-*.json results/portfolio-*.json "$OUT/results/"
}
bring_back() {
  rm -rf "$OUT/results/"*.lock "$OUT/results/logs"
  mv "$OUT/results/$1" "$OUT/" && rmdir "$OUT/results"
  # The originals go only once the tarball holds them; the tarball comes back whatever tar said.
  (cd "$OUT" && tar czf /tmp/logs.tgz --exclude="$1" . && find . -mindepth 1 ! -name "$1" -delete
   mv /tmp/logs.tgz "$OUT/")
}
