# Sourced by the spike scripts that race a space exhaustively on the GPU machine: race NAME SPACE SIZES
# runs the tuner over $D/SPACE for SIZES (empty results under $OUT/NAME, no warm start, the top 4
# kept) within $RACE_TIMEOUT seconds (200), and prints the summary table.
race() {
  timeout ${RACE_TIMEOUT:-200} $B/tuner/gemm-tune --results-dir $OUT/$1 --space $D/$2 --strategy exhaustive \
    --sizes "$3" --no-warm-start -j16 --top 4 > $OUT/$1.log 2>&1
  echo "$1 rc $? at $((SECONDS - T0)) s"; grep -A10 "^problem" $OUT/$1.log | cut -c1-150
}
