#!/usr/bin/env bash
# run3.sh: forty-third round, call 3 (one H200; call 2, run2.sh, was lost: the machine was taken
# back before it ended), from the repository root, with build-exp/r43l.txz (prepare2.sh:
# 076f11a, the clusters in cuBLASLt's launch order) and build-exp/r43.txz (gq: main's gemmq at
# 2da8db9) carried.
# 1. the nine GPU test programs;
# 2. ../round30/probe-miss.json, 200 timed replays, main (gq) and 076f11a in turn, 3 times;
# 3. gemmq bench --iterations 200 protocols/k1_wgrad.json (programs.json, programs.md).
# Every step is killed at its limit; everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r43l
mkdir -p build-exp/r43 && tar xJf build-exp/r43.txz -C build-exp/r43
for t in bench timing cupti_late timing_engine time_fault reference kernels programs det_processes; do
  (cd build && step gpu_test_gpu_$t 150 $o/gpu_test_gpu_$t.log tests/gpu_test_gpu_$t)
done
grep -h "checks," $o/gpu_test_gpu_*.log
pack
main="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
for i in 1 2 3; do
  step gq-$i 90 $o/gq-$i.log build-exp/r43/gq bench $W/round30/probe-miss.json $main \
    --iterations 200 -o $o/gq-$i.json
  step l-$i 90 $o/l-$i.log build/gemmq bench $W/round30/probe-miss.json $main \
    --iterations 200 -o $o/l-$i.json
done
pack
step k1bench 380 $o/programs.log build/gemmq bench --device 0 --iterations 200 \
  -o $o/programs.json --md $o/programs.md protocols/k1_wgrad.json
tail -n 1 $o/programs.log
cat $o/runs.txt
pack
