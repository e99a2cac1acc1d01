#!/usr/bin/env bash
# run2.sh: thirty-third round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round33/run2.sh
# build-exp/r33m.txz (round33/prepare.sh): gemmq and the GPU test programs of main (6e7d865:
# the pieces table through best_of), stripped. The nine GPU test programs, then
# gemmq bench --iterations 200 protocols/k1_wgrad.json, each killed (SIGKILL) at its limit.
# Everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r33m
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
for t in bench timing cupti_late timing_engine time_fault reference kernels programs det_processes; do
  (cd build && step gpu_test_gpu_$t 150 $o/gpu_test_gpu_$t.log tests/gpu_test_gpu_$t)
done
grep -h "checks," $o/gpu_test_gpu_*.log
pack
step bench 420 $o/programs.log build/gemmq bench --device 0 --iterations 200 \
  -o $o/programs.json --md $o/programs.md protocols/k1_wgrad.json
tail -n 1 $o/programs.log
cat $o/runs.txt
pack
