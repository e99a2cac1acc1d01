#!/usr/bin/env bash
# run5.sh: tenth round, call 5 (one H200): e3484db measured, from the repository root:
#   bash results/h200/logs/wgrad-experiments/round10/run5.sh   (writes $OUT/all.tgz after every step)
# build/gemmq is e3484db (dd82831 with the dependents' launch only for BF16 out and the TMA reduce
# waiting for its adds); build-exp/gemmq-r 5428690 (tile counters), gemmq-d f222612 (dd82831's
# code); build-exp/gpu_test_gpu_{kernels,programs,det_processes} those of e3484db, run from build/.
. results/h200/logs/wgrad-experiments/round9/prologue.sh
gputest() { (cd build && timeout ${2:-150} ../build-exp/gpu_test_gpu_$1 > /tmp/o/gpu_test_gpu_$1.log 2>&1); snap "gpu_test_gpu_$1 rc=$?"; }
for i in 1 2; do run r_$i build-exp/gemmq-r; run d_$i build-exp/gemmq-d; run n_$i build/gemmq; done
snap "ab done"
gputest kernels 200; gputest programs 100; gputest det_processes 100
{ time build/gemmq bench --device 0 -o /tmp/o/programs.json --md /tmp/o/programs.md protocols/k1_wgrad.json ; } > /tmp/o/programs-bench.log 2>&1
snap "bench rc=$?"
progs=""; for p in gemmq:det gemmq:streamk; do progs="$progs -p $p"; done
for n in 64 128 256; do for s in 1 2 3 4; do progs="$progs -p gemmq:split:n$n:s$s"; done; done
{ time build/gemmq accuracy --device 0 $progs -p cublas:default -o /tmp/o/accuracy-k1-programs.json protocols/k1_wgrad_odd.json ; } > /tmp/o/accuracy-k1-programs.log 2>&1
snap "accuracy rc=$?"
