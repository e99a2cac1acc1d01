#!/usr/bin/env bash
# run4.sh: tenth round, call 4 (one H200): the landed change (dd82831: BF16 out rounded by a
# programmatic dependent) measured, from the repository root:
#   bash results/h200/logs/wgrad-experiments/round10/run4.sh   (writes $OUT/all.tgz after every step)
# build/gemmq is dd82831; build-exp/gemmq-r 5428690 (the kernel before: tile counters); build-exp/
# gpu_test_gpu_{kernels,programs,det_processes} the GPU tests of dd82831 that run its kernels, run
# from build/ as ctest runs them.
. results/h200/logs/wgrad-experiments/round9/prologue.sh
. results/h200/logs/wgrad-experiments/round10/landed.sh
landed
for i in 1 2; do run r_$i build-exp/gemmq-r; run n_$i build/gemmq; done
snap "ab done"
