#!/usr/bin/env bash
# run3.sh: twenty-ninth round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round29/run3.sh
# build-exp/r29n.txz: the working tree's gemmq and GPU test programs of the timer (an op's
# memsets and copies counted in its CUPTI span; the GPU test's memset check as committed),
# built with `cmake --build build` and stripped.
# 1. the timer's GPU tests, from build/ as ctest runs them;
# 2. gemmq bench protocols/k1_wgrad.json, every program of ours and cuBLASLt's top 8, 200 timed
#    replays (programs.json, programs.md, programs.log): results/h200/programs.json;
# 3. the main job, gemmq qualify (the embedded smoke protocol) (smoke.json, smoke.log).
# Everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r29n
for t in timing timing_engine cupti_late bench time_fault; do
  (cd build && step gpu_test_gpu_$t 100 $o/gpu_test_gpu_$t.log tests/gpu_test_gpu_$t)
done
grep -h "checks,\|CUPTI:\|memset 64" $o/gpu_test_gpu_*.log
pack
step bench 450 $o/programs.log build/gemmq bench --device 0 --iterations 200 \
  -o $o/programs.json --md $o/programs.md protocols/k1_wgrad.json
pack
step smoke 100 $o/smoke.log build/gemmq qualify -o $o/smoke.json
cat $o/runs.txt
tail -3 $o/smoke.log
pack
