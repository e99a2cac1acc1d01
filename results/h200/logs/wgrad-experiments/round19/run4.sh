#!/usr/bin/env bash
# run4.sh: nineteenth round, call 4 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round19/run4.sh   (writes $OUT/all.tgz after every step)
# build-exp/head-19.txz holds bd8e247's build/gemmq and GPU tests (gemmq:split:n320:s<1..4>
# landed, the design of call 1's gemmq-a). Every GPU test; the bench of protocols/k1_wgrad.json
# (all 18 programs: programs.md); the memory-bound bench three times (the four split programs of
# round3/bench.sh and n320:s3, n320:s4); the accuracy of the 18 programs and cublas:default on
# protocols/k1_wgrad_odd.json (10 seeds × 20 reruns).
c=4
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/head-19.txz
for t in kernels programs det_processes reference timing timing_engine time_fault cupti_late; do
  gputest_bin ./tests/gpu_test_gpu_$t $t 200
done
grep "^# summary\|^# speed goal\|^# total" /tmp/o/gpu_test_gpu_kernels.log
{ time build/gemmq bench --device 0 -o /tmp/o/programs-call4.json --md /tmp/o/programs-call4.md protocols/k1_wgrad.json ; } > /tmp/o/programs-call4-bench.log 2>&1
snap "bench rc=$?"
progs="$progs -p gemmq:split:n320:s3 -p gemmq:split:n320:s4"
for i in 1 2 3; do run m_$i build/gemmq; done
snap "membound done"
tables "m"
progs=""; for p in gemmq:det gemmq:streamk; do progs="$progs -p $p"; done
for n in 64 128 256 320; do for s in 1 2 3 4; do progs="$progs -p gemmq:split:n$n:s$s"; done; done
{ time build/gemmq accuracy --device 0 $progs -p cublas:default -o /tmp/o/accuracy-k1-programs-call4.json protocols/k1_wgrad_odd.json ; } > /tmp/o/accuracy-k1-programs-call4.log 2>&1
snap "accuracy rc=$?"
tail -3 /tmp/o/accuracy-k1-programs-call4.log
