#!/usr/bin/env bash
# run5.sh: fifteenth round, prepared for a next call (one H200) and not run: the device time of
# this round was spent. From the repository root:
#   bash results/h200/logs/wgrad-experiments/round15/run5.sh   (writes $OUT/all.tgz after every step)
# build-exp/ab5.txz is to hold build-exp/gemmq-m (main), build-exp/gemmq-q (round15/next.patch
# as it is: main's kernel, with GQX_RGRID, the rounding kernel's grid for BF16 out, read from the
# environment) and build-exp/gemmq-i2 with build-exp/gpu_test_gpu_{kernels,programs}-i2
# (next.patch built with -DGQX_INFLIGHT=2: the pipelined consumers leave two groups running and
# release a stage two K-blocks later). i2's GPU tests, the FP64 check of i2 and of q with a
# grid of its own, then the memory-bound bench of main, i2 and q with grids of 132, 264 and 528
# CTAs (BF16 out costs the split programs 1.3-2.4 µs more than FP32 out at d_out 128, T ≥ 40963,
# in 12a46b7's bench; cuBLASLt's fastest about nothing), three times each, interleaved.
c=5
tar xJf build-exp/ab5.txz
mkdir -p build && cp build-exp/gemmq-i2 build/gemmq
rm -rf /tmp/o /tmp/r   # a machine may hold an earlier session's
. results/h200/logs/wgrad-experiments/round9/prologue.sh
nvidia-smi --query-gpu=index,name,serial --format=csv,noheader > /tmp/o/gpu-$c.txt
for x in kernels programs; do
  (cd build && timeout 100 ../build-exp/gpu_test_gpu_$x-i2 > /tmp/o/gpu_test_gpu_$x-i2.log 2>&1)
  snap "gpu_test_gpu_$x-i2 rc=$?"
done
check i2 build-exp/gemmq-i2
check q build-exp/gemmq-q GQX_RGRID=264
snap "checks done"
for i in 1 2 3; do
  run m_$i build-exp/gemmq-m
  run i2_$i build-exp/gemmq-i2
  for g in 132 264 528; do run g${g}_$i build-exp/gemmq-q GQX_RGRID=$g; done
done
snap "ab done"
tables "m i2 g132 g264 g528"
