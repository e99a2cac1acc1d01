#!/usr/bin/env bash
# run7.sh: ninth round, call 7 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round9/run7.sh   (writes $OUT/all.tgz after every step)
# build-exp/gemmq-main is main (21af3c3); build-exp/gemmq-bk128 the same with bk128.patch: K-blocks
# of 128 rows instead of 64 (chunks of two K-blocks, so still 256 rows); the 128x128 tile then has
# 3 stages of 64 KiB, the 64x256 tile 2 of 80 KiB, the tiles of d_out <= 64 2 stages.
. results/h200/logs/wgrad-experiments/round9/prologue.sh
check bk build-exp/gemmq-bk128
snap "checks done"
for i in 1 2 3; do
  run a_$i build-exp/gemmq-main; run bk_$i build-exp/gemmq-bk128
  snap "pass $i done"
done
(cd build && timeout 200 ../build-exp/gpu_test_gpu_kernels-bk128 > /tmp/o/gpu_test_gpu_kernels-bk.log 2>&1); snap "gpu_test_gpu_kernels bk128 rc=$?"
