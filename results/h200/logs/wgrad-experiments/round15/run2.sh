#!/usr/bin/env bash
# run2.sh: fifteenth round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round15/run2.sh   (writes $OUT/all.tgz after every step)
# build-exp/ab2.txz holds build-exp/gemmq-m (main) and gemmq-r2 (call 1's: whole rounds, chunks
# of 2 rounds), and the knobs of round15/pipe.patch on r2: p2, p3 (GQX_PIPE=1: each stage's
# wgmma group left running while the next stage's is issued, wait_group 1; chunks of 2 and 3
# rounds), p3x (p3 with GQX_XSTAGE=1: one more stage where the shared memory holds it), r2x (r2
# with the extra stage), with build-exp/gpu_test_gpu_{kernels,programs}-{p2,p3x}. Those GPU tests,
# every build's FP64 check, then the memory-bound bench of all six, three times each,
# interleaved, and the SASS of p3's 128x128 cluster kernel.
c=2
tar xJf build-exp/ab2.txz
mkdir -p build && cp build-exp/gemmq-p2 build/gemmq
. results/h200/logs/wgrad-experiments/round9/prologue.sh
nvidia-smi --query-gpu=name,serial --format=csv,noheader > /tmp/o/gpu-$c.txt
for b in p2 p3x; do
  for x in kernels programs; do
    (cd build && timeout 100 ../build-exp/gpu_test_gpu_$x-$b > /tmp/o/gpu_test_gpu_$x-$b.log 2>&1)
    snap "gpu_test_gpu_$x-$b rc=$?"
  done
done
for b in p2 p3 p3x r2x; do check $b build-exp/gemmq-$b; done
snap "checks done"
builds="m r2 p2 p3 p3x r2x"
for i in 1 2 3; do for b in $builds; do run ${b}_$i build-exp/gemmq-$b; done; done
snap "ab done"
cuobjdump -sass -fun '_Z12gq_wg_kernelILi128ELi128ELb1ELi1ELi4EEv14CUtensorMap_stS0_S0_12gq_wg_params' \
  build-exp/gemmq-p3 2>&1 | gzip > /tmp/o/sass-p3.txt.gz
snap "sass done"
tables "$builds"
