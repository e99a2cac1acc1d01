#!/usr/bin/env bash
# run5.sh: tenth round, call 5 (one H200): e3484db measured, from the repository root:
#   bash results/h200/logs/wgrad-experiments/round10/run5.sh   (writes $OUT/all.tgz after every step)
# build/gemmq is e3484db (dd82831 with the dependents' launch only for BF16 out and the TMA reduce
# waiting for its adds); build-exp/gemmq-r 5428690 (tile counters), gemmq-d f222612 (dd82831's
# code); build-exp/gpu_test_gpu_{kernels,programs,det_processes} those of e3484db, run from build/.
. results/h200/logs/wgrad-experiments/round9/prologue.sh
. results/h200/logs/wgrad-experiments/round10/landed.sh
for i in 1 2; do run r_$i build-exp/gemmq-r; run d_$i build-exp/gemmq-d; run n_$i build/gemmq; done
snap "ab done"
landed
