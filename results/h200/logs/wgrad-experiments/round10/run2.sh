#!/usr/bin/env bash
# run2.sh: tenth round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round10/run2.sh   (writes $OUT/all.tgz after every step)
# build/gemmq is 5428690 (the partial tiles added by the TMA unit); build-exp/ (from bins.tgz):
# gemmq-old 4c478bd (float2 atomics), gemmq-s0 5428690 with stagger.patch and no knob (the same
# code), gemmq-s1/-s2/-s4 GQX_STAG=1/2/4 (the splits' shares grow by 2, 4, 8 K-blocks, so that
# they finish at different times); gpu_test_gpu_{kernels,programs,det_processes} of 5428690, run
# from build/ as ctest runs them.
. results/h200/logs/wgrad-experiments/round9/prologue.sh
gputest() { (cd build && timeout ${2:-150} ../build-exp/gpu_test_gpu_$1 > /tmp/o/gpu_test_gpu_$1.log 2>&1); snap "gpu_test_gpu_$1 rc=$?"; }
{ time build/gemmq bench --device 0 -o /tmp/o/programs.json --md /tmp/o/programs.md protocols/k1_wgrad.json ; } > /tmp/o/programs-bench.log 2>&1
snap "bench rc=$?"
for b in s1 s2 s4; do check $b build-exp/gemmq-$b; done
snap "checks done"
for i in 1 2; do
  for b in old s0 s1 s2 s4; do run ${b}_$i build-exp/gemmq-$b; done; run n_$i build/gemmq
  snap "pass $i done"
done
gputest kernels 200; gputest programs 100; gputest det_processes 100
