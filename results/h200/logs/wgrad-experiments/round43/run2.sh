#!/usr/bin/env bash
# run2.sh: forty-third round, call 2 (one H200), from the repository root, with build-exp/r43l.txz
# (prepare2.sh: 076f11a, the clusters in cuBLASLt's launch order) and build-exp/r43.txz (gq:
# main's gemmq at 2da8db9) carried.
# 1. the nine GPU test programs;
# 2. ../round30/probe-miss.json, 200 timed replays, main (gq) and 076f11a in turn, 4 times;
# 3. the k1 accuracy of the 18 programs and cublas:default (protocols/k1_wgrad_odd.json,
#    10 seeds x 20 reruns: accuracy-k1-programs.json);
# 4. the memory-bound bench (protocols/k1_wgrad_membound.json, the 16 split programs).
# Every step is killed at its limit; everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r43l
mkdir -p build-exp/r43 && tar xJf build-exp/r43.txz -C build-exp/r43
for t in bench timing cupti_late timing_engine time_fault reference kernels programs det_processes; do
  (cd build && step gpu_test_gpu_$t 150 $o/gpu_test_gpu_$t.log tests/gpu_test_gpu_$t)
done
grep -h "checks," $o/gpu_test_gpu_*.log
pack
main="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
for i in 1 2 3 4; do
  step gq-$i 90 $o/gq-$i.json.log build-exp/r43/gq bench $W/round30/probe-miss.json $main \
    --iterations 200 -o $o/gq-$i.json
  step l-$i 90 $o/l-$i.json.log build/gemmq bench $W/round30/probe-miss.json $main \
    --iterations 200 -o $o/l-$i.json
done
pack
all=""; for n in 64 128 256 320; do for s in 1 2 3 4; do all="$all -p gemmq:split:n$n:s$s"; done; done
step accuracy 290 $o/accuracy-k1-programs.log build/gemmq accuracy --device 0 -p gemmq:det \
  -p gemmq:streamk $all -p cublas:default -o $o/accuracy-k1-programs.json protocols/k1_wgrad_odd.json
tail -n 2 $o/accuracy-k1-programs.log
pack
step membound 150 $o/membound.log build/gemmq bench --iterations 200 $all \
  -o $o/membound.json --md $o/membound.md protocols/k1_wgrad_membound.json
tail -n 1 $o/membound.log
cat $o/runs.txt
pack
