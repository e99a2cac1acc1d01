#!/usr/bin/env bash
# run6.sh: ninth round, call 6 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round9/run6.sh   (writes $OUT/all.tgz after every step)
# build-exp/gemmq-main is main (21af3c3); build-exp/gemmq-ring7 the same with ring7.patch: the
# tiles of one CTA per SM get 225 KiB of ring instead of 200, which gives the 128x128 tile 7
# stages instead of 6 (the 64x256 tile keeps 5).
. results/h200/logs/wgrad-experiments/round9/prologue.sh
check r7 build-exp/gemmq-ring7
snap "checks done"
for i in 1 2 3; do
  run a_$i build-exp/gemmq-main; run r7_$i build-exp/gemmq-ring7
  snap "pass $i done"
done
(cd build && timeout 200 ../build-exp/gpu_test_gpu_kernels-ring7 > /tmp/o/gpu_test_gpu_kernels-r7.log 2>&1); snap "gpu_test_gpu_kernels ring7 rc=$?"
