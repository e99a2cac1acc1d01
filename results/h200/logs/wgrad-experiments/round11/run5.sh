#!/usr/bin/env bash
# run5.sh: eleventh round, call 5 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round11/run5.sh   (writes $OUT/all.tgz after every step)
# build/gemmq is 5e8decb with the ring's stage advance in one helper (gq_wg_next_stage) and the
# clusters' axis in another (gq_wg_along), as committed right after (d3a0abc); build-exp/gemmq-m 5e8decb;
# build-exp/gpu_test_gpu_{kernels,programs} those of the new build, run from build/.
. results/h200/logs/wgrad-experiments/round9/prologue.sh
gputest() { (cd build && timeout 200 ../build-exp/gpu_test_gpu_$1 > /tmp/o/gpu_test_gpu_$1.log 2>&1); snap "gpu_test_gpu_$1 rc=$?"; }
check h build/gemmq
for i in 1 2 3; do run m_$i build-exp/gemmq-m; run h_$i build/gemmq; done
snap "ab done"
gputest kernels; gputest programs
