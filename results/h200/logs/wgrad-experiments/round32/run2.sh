#!/usr/bin/env bash
# run2.sh: thirty-second round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round32/run2.sh
# build-exp/r32p.txz: gemmq and the GPU test programs of d000c3f (gemmq bench records each
# program's pieces), built with `cmake --build build`, stripped.
# The nine GPU test programs, then gemmq bench --iterations 200 protocols/k1_wgrad.json
# (programs.json, programs.md). Everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r32p
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
