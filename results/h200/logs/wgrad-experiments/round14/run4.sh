#!/usr/bin/env bash
# run4.sh: fourteenth round, call 4 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round14/run4.sh   (writes $OUT/all.tgz after every step)
# build-exp/ab4.tgz holds build-exp/gemmq-m (7f660a7, main), build-exp/gemmq-l (call 3's lean
# consumers) and build-exp/gemmq-u with build-exp/gpu_test_gpu_{kernels,programs}-u (the same with
# the consumers' loop unrolled over the ring's stages). The unrolled build's GPU tests and FP64
# check, then the memory-bound bench of the three, three times each, interleaved, and its SASS:
# run3.sh's lines with these builds.
CALL=4 TGZ=build-exp/ab4.tgz BUILDS="m l u" TESTED=u SASS=u \
  bash results/h200/logs/wgrad-experiments/round14/run3.sh
