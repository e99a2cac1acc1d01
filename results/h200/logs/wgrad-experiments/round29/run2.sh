#!/usr/bin/env bash
# run2.sh: twenty-ninth round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round29/run2.sh
# build-exp/r29.txz: main's gemmq (d503f1c: spans of kernels only), as in run1.sh;
# build-exp/r29n.txz: the working tree's gemmq and the GPU test programs of the timer (memsets
# and copies of an op counted in its CUPTI span), built with `cmake --build build` and stripped.
# 1. the timer's GPU tests of the new build, from build/ as ctest runs them;
# 2. ../round23/probe-128.json (d_out 128, T = 65537) with n256:s4 and n320:s4 beside cuBLASLt's
#    top 8, 200 timed replays: main's gemmq (o) and the new one (n), interleaved, twice each.
# Everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r29n r29
for t in timing timing_engine cupti_late bench time_fault; do
  (cd build && step gpu_test_gpu_$t 200 $o/gpu_test_gpu_$t.log tests/gpu_test_gpu_$t)
done
P=results/h200/logs/wgrad-experiments/round23/probe-128.json
for i in 1 2; do
  for v in o:build-exp/r29/gemmq n:build-exp/r29n/gemmq; do
    IFS=: read -r tag bin <<< "$v"
    step $tag-$i 120 $o/$tag-$i.log $bin bench $P -p gemmq:split:n256:s4 -p gemmq:split:n320:s4 \
      --iterations 200 -o $o/$tag-$i.json --md $o/$tag-$i.md
  done
done
grep -h "checks,\|CUPTI:\|memset 64" $o/gpu_test_gpu_*.log
cat $o/runs.txt
pack
