#!/usr/bin/env bash
# run10.sh: thirteenth round, call 10 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round13/run10.sh   (writes $OUT/all.tgz after every step)
# build-exp/bins.tgz holds build-exp/gemmq and build-exp/gpu_test_gpu_{kernels,programs,
# det_processes} of 2c42908 (the wgmma stream-K as one problem per M tile, sk_groups);
# build/gemmq is build-exp/gemmq. What every landed kernel gets
# (../round10/landed.sh): the GPU tests, the bench of protocols/k1_wgrad.json and the accuracy of
# all 14 programs and cublas:default on protocols/k1_wgrad_odd.json.
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-10.txt
tar xzf build-exp/bins.tgz
mkdir -p build && cp build-exp/gemmq build/gemmq
. results/h200/logs/wgrad-experiments/round9/prologue.sh
. results/h200/logs/wgrad-experiments/round10/landed.sh
landed
