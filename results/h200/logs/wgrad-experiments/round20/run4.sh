#!/usr/bin/env bash
# run4.sh: twentieth round, call 4 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round20/run4.sh   (writes $OUT/all.tgz after every step)
# build-exp/head-20.txz holds e876441's build/gemmq and GPU tests (gq_wg_consumer deriving its
# rows, columns and staging offset from wg), and build-exp/s20/gemmq-m (e1fbac6, the kernels of
# bd8e247) and gemmq-s (e876441), stripped. Every GPU test; the accuracy of the 18 programs and
# cublas:default on protocols/k1_wgrad_odd.json (10 seeds × 20 reruns); the bench of
# protocols/k1_wgrad.json (all 18 programs: programs.md); the memory-bound bench of m and s three
# times each, interleaved (the four split programs of round3/bench.sh and n320:s3, n320:s4).
c=4
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/head-20.txz
for t in kernels programs det_processes reference timing timing_engine time_fault cupti_late; do
  gputest_bin ./tests/gpu_test_gpu_$t $t 200
done
grep "^# summary\|^# speed goal\|^# total\|checks" /tmp/o/gpu_test_gpu_kernels.log | tail -8
progs=""; for p in gemmq:det gemmq:streamk; do progs="$progs -p $p"; done
for n in 64 128 256 320; do for s in 1 2 3 4; do progs="$progs -p gemmq:split:n$n:s$s"; done; done
{ time build/gemmq accuracy --device 0 $progs -p cublas:default -o /tmp/o/accuracy-k1-programs.json protocols/k1_wgrad_odd.json ; } > /tmp/o/accuracy-k1-programs.log 2>&1
snap "accuracy rc=$?"
tail -3 /tmp/o/accuracy-k1-programs.log
{ time build/gemmq bench --device 0 -o /tmp/o/programs.json --md /tmp/o/programs.md protocols/k1_wgrad.json ; } > /tmp/o/programs-bench.log 2>&1
snap "bench rc=$?"
. results/h200/logs/wgrad-experiments/round3/bench.sh
progs="$progs -p gemmq:split:n320:s3 -p gemmq:split:n320:s4"
ab "m:build-exp/s20/gemmq-m s:build-exp/s20/gemmq-s"
tables "m s"
