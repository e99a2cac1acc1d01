#!/usr/bin/env bash
# run1.sh: eleventh round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round11/run1.sh   (writes $OUT/all.tgz after every step)
# build/gemmq is 73ebb71 (de13a73: the BF16 rounding by gq_mma_reduce_launch, programmatic);
# build-exp/gemmq-e e3484db (its twin rounding kernel); build-exp/gemmq-x 73ebb71 with the
# environment knob GQX_NOMEMSET (the split programs skip the memset of the sums: wrong sums, the
# op's time without that node); build-exp/gpu_test_gpu_{kernels,programs,det_processes} those of
# 73ebb71, run from build/.
. results/h200/logs/wgrad-experiments/round9/prologue.sh
. results/h200/logs/wgrad-experiments/round10/landed.sh
for i in 1 2; do
  run e_$i build-exp/gemmq-e; run n_$i build/gemmq; run z_$i build-exp/gemmq-x GQX_NOMEMSET=1
done
snap "ab done"
landed
