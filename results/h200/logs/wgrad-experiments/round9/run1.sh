#!/usr/bin/env bash
# run1.sh: ninth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round9/run1.sh   (writes $OUT/all.tgz after every step)
# build-exp/gemmq-main is main (21af3c3); build-exp/gemmq-fin the same with fin.patch: GQX_FIN=1
# ends a split tile with BF16 out through a ticket (the last CTA adds its own sums in registers
# instead of atomically, then rounds the tile to out), 2 the same with the workspace zeroed behind
# it (no memset before the kernel), 3 as 2 for FP32 out as well.
. results/h200/logs/wgrad-experiments/round9/prologue.sh
check f1 build-exp/gemmq-fin GQX_FIN=1; check f2 build-exp/gemmq-fin GQX_FIN=2
check f3 build-exp/gemmq-fin GQX_FIN=3
snap "checks done"
for i in 1 2; do
  run a_$i build-exp/gemmq-main; run f0_$i build-exp/gemmq-fin; run f1_$i build-exp/gemmq-fin GQX_FIN=1
  run f2_$i build-exp/gemmq-fin GQX_FIN=2; run f3_$i build-exp/gemmq-fin GQX_FIN=3
  snap "pass $i done"
done
(cd build && GQX_FIN=3 timeout 200 ../build-exp/gpu_test_gpu_kernels-fin > /tmp/o/gpu_test_gpu_kernels-f3.log 2>&1); snap "gpu_test_gpu_kernels GQX_FIN=3 rc=$?"
