#!/usr/bin/env bash
# run1.sh: fifteenth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round15/run1.sh   (writes $OUT/all.tgz after every step)
# build-exp/ab1.txz holds build-exp/gemmq-m (main, 913fd83) and, for R = 1 to 4, build-exp/gemmq-rR
# with build-exp/gpu_test_gpu_{kernels,programs}-rR: the consumers' loop over whole rounds of the
# ring and then the rest, a chunk R rounds (GQ_WG_CHUNK_ROUNDS=R), so that no K-block tests
# anything. Each build's GPU kernel and program tests and FP64 check, then the memory-bound bench
# of all five, three times each, interleaved, and the SASS of main's and r2's split kernels.
c=1
tar xJf build-exp/ab1.txz
mkdir -p build && cp build-exp/gemmq-r2 build/gemmq
. results/h200/logs/wgrad-experiments/round9/prologue.sh
nvidia-smi --query-gpu=name,serial --format=csv,noheader > /tmp/o/gpu-$c.txt
for b in r1 r2 r3 r4; do
  for x in kernels programs; do
    (cd build && timeout 100 ../build-exp/gpu_test_gpu_$x-$b > /tmp/o/gpu_test_gpu_$x-$b.log 2>&1)
    snap "gpu_test_gpu_$x-$b rc=$?"
  done
  check $b build-exp/gemmq-$b
done
snap "checks done"
builds="m r1 r2 r3 r4"
for i in 1 2 3; do for b in $builds; do run ${b}_$i build-exp/gemmq-$b; done; done
snap "ab done"
for b in m r2; do
  cuobjdump -sass -fun '_Z12gq_wg_kernelILi128ELi128ELb1ELi1ELi4EEv14CUtensorMap_stS0_S0_12gq_wg_params' \
    build-exp/gemmq-$b 2>&1 | gzip > /tmp/o/sass-$b.txt.gz
  [ $(zcat /tmp/o/sass-$b.txt.gz | wc -l) -gt 100 ] || cuobjdump -sass build-exp/gemmq-$b 2>&1 | gzip > /tmp/o/sass-$b.txt.gz
done
snap "sass done"
tables "$builds"
