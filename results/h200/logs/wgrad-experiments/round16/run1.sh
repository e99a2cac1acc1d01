#!/usr/bin/env bash
# run1.sh: sixteenth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round16/run1.sh   (writes $OUT/all.tgz after every step)
# build-exp/ab1-16.txz holds build-exp/gemmq-m (main, 52fd5d3) and round16/knobs.patch built four
# ways, with each one's gpu_test_gpu_{kernels,programs}: q (as it is: GQX_ZB=1 in the environment
# drops the memset node of BF16 out, the rounding kernel zeroing the sums behind its reads), i2
# (-DGQX_INFLIGHT=2: the pipelined consumers leave two wgmma groups running), L (-DGQX_LATE=1:
# the GEMM lets its dependent, the rounding, launch only once each CTA's consumers leave their
# loop, not at its start) and iL (both). The GPU tests of q (with GQX_ZB=1), i2 and iL (with
# GQX_ZB=1), each build's FP64 check, then the memory-bound bench of m, z (q, GQX_ZB=1), i2, L
# and all (iL, GQX_ZB=1), three times each, interleaved.
c=1
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/ab1-16.txz
mkdir -p build && cp build-exp/gemmq-q build/gemmq
for t in "q GQX_ZB=1" "i2 GQX_I=0" "iL GQX_ZB=1"; do
  set -- $t
  for x in kernels programs; do
    (cd build && env $2 timeout 100 ../build-exp/gpu_test_gpu_$x-$1 > /tmp/o/gpu_test_gpu_$x-$1.log 2>&1)
    snap "gpu_test_gpu_$x-$1 $2 rc=$?"
  done
done
check z build-exp/gemmq-q GQX_ZB=1
check i2 build-exp/gemmq-i2
check L build-exp/gemmq-L
check all build-exp/gemmq-iL GQX_ZB=1
snap "checks done"
ab "m:build-exp/gemmq-m z:build-exp/gemmq-q:GQX_ZB=1 i2:build-exp/gemmq-i2 L:build-exp/gemmq-L all:build-exp/gemmq-iL:GQX_ZB=1"
tables "m z i2 L all"
