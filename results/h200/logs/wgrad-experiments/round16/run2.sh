#!/usr/bin/env bash
# run2.sh: sixteenth round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round16/run2.sh   (writes $OUT/all.tgz after every step)
# build-exp/ab2-16.txz holds build-exp/gemmq-m (main, 52fd5d3), gemmq-i2 (call 1's), and
# round16/knobs.patch as it is now (GQX_SPIN added) built as s (defaults) and si2
# (-DGQX_INFLIGHT=2), with s's gpu_test_gpu_{kernels,programs}. GQX_SPIN=1: with BF16 out each
# consumer warpgroup counts its 64 × WN block done once its TMA adds have completed, and the
# rounding (a programmatic dependent that never waits for the grid) rounds each block as soon
# as its counter reaches the splits. s's GPU tests and FP64 check with GQX_SPIN=1, then the
# memory-bound bench of m, sp (s, GQX_SPIN=1), i2 and si (si2, GQX_SPIN=1), three times each,
# interleaved.
c=2
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/ab2-16.txz
mkdir -p build && cp build-exp/gemmq-s build/gemmq
for x in kernels programs; do
  (cd build && GQX_SPIN=1 timeout 100 ../build-exp/gpu_test_gpu_$x-s > /tmp/o/gpu_test_gpu_$x-s.log 2>&1)
  snap "gpu_test_gpu_$x-s GQX_SPIN=1 rc=$?"
done
check sp build-exp/gemmq-s GQX_SPIN=1
check si build-exp/gemmq-si2 GQX_SPIN=1
snap "checks done"
ab "m:build-exp/gemmq-m sp:build-exp/gemmq-s:GQX_SPIN=1 i2:build-exp/gemmq-i2 si:build-exp/gemmq-si2:GQX_SPIN=1"
tables "m sp i2 si"
