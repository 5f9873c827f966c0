#!/usr/bin/env bash
# one-off: the GPU tiers, then fresh-user 2048 searches (each its own empty cache and results), raced by cross
W=/tmp/f2048; rm -rf $W; mkdir -p $W
start=$(date +%s)
scripts/device-run.sh tests > $OUT/tier.txt 2>&1; echo "tier rc $? $(( $(date +%s) - start )) s" | tee -a $OUT/tier.txt
tail -25 $OUT/tier.txt
for i in $(seq ${RUNS:-5}); do
  [ $(( $(date +%s) - start )) -gt 520 ] && break
  s=$(date +%s.%N)
  timeout 60 .device-build/tuner/gemm-tune --gpu 0 -j 16 --sizes 2048 --cache-dir $W/c$i --results-dir $W/r$i --log-level debug > $W/t$i.log 2>&1
  echo "run $i: $(python3 -c "import sys,time;print(f'{time.time()-float(sys.argv[1]):.1f} s')" $s) $(grep -A1 '^problem' $W/t$i.log | tail -1)"
  timeout 60 .device-build/tuner/gemm-tune cross --gpu 0 --from results/nvidia-h100-80gb-hbm3.json --results-dir $W/r$i --cache-dir $W/c$i > $W/x$i.cross 2>&1
  grep -E "^\S+\s+2048 " $W/x$i.cross
done
date -u
(cd $W && tar czf $OUT/f2048.tgz *.log *.cross r*/logs)
(cd $OUT && tar czf tierlogs.tgz gpu_tests.log runtime_gpu_tests.log host_tests.log call_overhead.log tuned_sgemm.log gpu.txt && rm -f gpu_tests.log runtime_gpu_tests.log host_tests.log call_overhead.log tuned_sgemm.log gpu.txt)
