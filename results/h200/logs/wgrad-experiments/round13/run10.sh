#!/usr/bin/env bash
# run10.sh: thirteenth round, call 10 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round13/run10.sh   (writes $OUT/all.tgz after every step)
# build-exp/bins.tgz holds build-exp/gemmq and build-exp/gpu_test_gpu_{kernels,programs,
# det_processes} of 2c42908 (the wgmma stream-K as one problem per M tile, sk_groups);
# build/gemmq is build-exp/gemmq: run9.sh's lines with CALL=10.
CALL=10 bash results/h200/logs/wgrad-experiments/round13/run9.sh
