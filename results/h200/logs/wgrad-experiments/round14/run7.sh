#!/usr/bin/env bash
# run7.sh: fourteenth round, prepared as call 7 but not run (the device time left could not start
# a machine); for a next round, from the repository root:
#   bash results/h200/logs/wgrad-experiments/round14/run7.sh   (writes $OUT/all.tgz after every step)
# build-exp/ab7.tgz is to hold build-exp/gemmq-m (main) and build-exp/gemmq-c with
# build-exp/gpu_test_gpu_kernels-c (chunks.patch: the consumers' rounds a multiple of both the
# ring and the chunk, so that a K-block's chunk start and end are known at compile time). Its
# kernel test and FP64 check, then the memory-bound bench of both, twice each, interleaved.
c=7
tar xzf build-exp/ab7.tgz
mkdir -p build && cp build-exp/gemmq-c build/gemmq
. results/h200/logs/wgrad-experiments/round9/prologue.sh
nvidia-smi --query-gpu=name,serial --format=csv,noheader > /tmp/o/gpu-$c.txt
(cd build && timeout 60 ../build-exp/gpu_test_gpu_kernels-c > /tmp/o/gpu_test_gpu_kernels-c.log 2>&1)
snap "gpu_test_gpu_kernels-c rc=$?"
check c build-exp/gemmq-c
snap "check done"
for i in 1 2; do run m_$i build-exp/gemmq-m; snap "m_$i"; run c_$i build-exp/gemmq-c; snap "c_$i"; done
tables "m c"
