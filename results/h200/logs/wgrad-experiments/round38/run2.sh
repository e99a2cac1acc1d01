#!/usr/bin/env bash
# run2.sh: thirty-eighth round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round38/run2.sh
# build-exp/r38m.txz: main (133111b, whose code is that of the commits after it that change
# only results) from `round35/prepare.sh r38m`. The nine GPU test programs, each killed
# (SIGKILL) at its limit; everything packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r38m
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
for t in bench timing cupti_late timing_engine time_fault reference kernels programs det_processes; do
  (cd build && step gpu_test_gpu_$t 150 $o/gpu_test_gpu_$t.log tests/gpu_test_gpu_$t)
done
grep -h "checks," $o/gpu_test_gpu_*.log
cat $o/runs.txt
pack
