#!/usr/bin/env bash
# one-off: the scheduler test repeated on 16 cores, then the fresh-user benchmark
.device-build/tests/host_tests --gtest_filter=GpuScheduler.* --gtest_repeat=30 2>&1 | grep -cE "^\[  FAILED  \] GpuScheduler" | sed 's/^/scheduler failures in 30 repeats: /'
WORK=/tmp/fu scripts/fresh-user-bench.sh > $OUT/bench.txt 2>&1; echo "bench rc $?"
cat $OUT/bench.txt | grep -v "^tune\|^debug"
(cd /tmp/fu && tar czf $OUT/fu.tgz *.log *.cross)
