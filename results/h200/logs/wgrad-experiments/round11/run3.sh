#!/usr/bin/env bash
# run3.sh: eleventh round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round11/run3.sh   (writes $OUT/all.tgz after every step)
# Builds (build-exp/, from knobs.patch on 6e7bc30, RelWithDebInfo, sm_90a, the knobs in
# CMAKE_CUDA_FLAGS): gemmq-r GQX_ROTC=1 (split z adds its tile's boxes starting from box z, so
# that the splits of a tile do not add into the same box at once); gemmq-b GQX_RB=264 (the
# BF16 rounding kernel at most 264 blocks, two per SM, each thread two float4s); gemmq-rb both;
# gpu_test_gpu_kernels-rb the GPU test of that build. build/gemmq is 6e7bc30 (the kernel of 73ebb71).
. results/h200/logs/wgrad-experiments/round9/prologue.sh
for b in r b rb; do check $b build-exp/gemmq-$b; done
snap "checks done"
for i in 1 2; do
  run n_$i build/gemmq; for b in r b rb; do run ${b}_$i build-exp/gemmq-$b; done
  snap "pass $i done"
done
(cd build && timeout 200 ../build-exp/gpu_test_gpu_kernels-rb > /tmp/o/gpu_test_gpu_kernels-rb.log 2>&1)
snap "gpu_test_gpu_kernels-rb rc=$?"
