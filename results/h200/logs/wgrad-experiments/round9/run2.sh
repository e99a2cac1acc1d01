#!/usr/bin/env bash
# run2.sh: ninth round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round9/run2.sh   (writes $OUT/all.tgz after every step)
# build-exp/gemmq-main is main (21af3c3); build-exp/gemmq-cl8 the same with cl8.patch:
# GQX_CL8=1 lets the 128x128 tile's N tiles share g in clusters of 8 (each CTA copies a 16-row
# quarter of one of g's boxes) where 8 fit in one wave (it prints what the occupancy query says);
# GQX_BFK=1 ends a split with BF16 out by a conversion kernel after the GEMM instead of the tile
# counters.
. results/h200/logs/wgrad-experiments/round9/prologue.sh
check c8 build-exp/gemmq-cl8 GQX_CL8=1; check bk build-exp/gemmq-cl8 GQX_BFK=1
snap "checks done"
for i in 1 2; do
  run a_$i build-exp/gemmq-main; run c0_$i build-exp/gemmq-cl8; run c8_$i build-exp/gemmq-cl8 GQX_CL8=1
  run bk_$i build-exp/gemmq-cl8 GQX_BFK=1
  snap "pass $i done"
done
(cd build && GQX_CL8=1 timeout 200 ../build-exp/gpu_test_gpu_kernels-cl8 > /tmp/o/gpu_test_gpu_kernels-c8.log 2>&1); snap "gpu_test_gpu_kernels GQX_CL8=1 rc=$?"
