#!/usr/bin/env bash
# run9.sh: thirteenth round, call 9 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round13/run9.sh   (writes $OUT/all.tgz after every step)
# build-exp/bins.tgz holds build-exp/gemmq and build-exp/gpu_test_gpu_{kernels,programs,
# det_processes} of c77c08c (gemmq:streamk's wgrad layout on the wgmma kernels, the fixup spread
# over a row of CTAs per boundary); build/gemmq is build-exp/gemmq. What every landed kernel gets
# (../round10/landed.sh): the GPU tests, the bench of protocols/k1_wgrad.json and the accuracy of
# all 14 programs and cublas:default on protocols/k1_wgrad_odd.json. run10.sh runs these lines
# again with CALL=10.
c=${CALL:-9}
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-$c.txt
tar xzf build-exp/bins.tgz
mkdir -p build && cp build-exp/gemmq build/gemmq
. results/h200/logs/wgrad-experiments/round9/prologue.sh
. results/h200/logs/wgrad-experiments/round10/landed.sh
landed
