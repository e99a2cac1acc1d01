#!/usr/bin/env bash
# run3.sh: twenty-fourth round, call 3 (an H200 ×2), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round24/run3.sh   (writes $OUT/all.tgz)
# Was call 2's dynamic shares slower than call 1's for the build or for the H200s? Both builds
# (build-exp/h24a, h24b) on the same GPUs: probe-128.json with n256:s4 and n320:s4, 200 timed
# replays, interleaved, twice on each GPU: main (h24b, no knob), a75 (h24a, 75,2), b75 (h24b,
# 75,2), b100 (h24b, 100,1: one piece of one K-block in the rest, the rest of the machinery as
# with 75), b75m5 (h24b, 75,5: pieces of at least 5 K-blocks).
c=${C:?give the call number in C}
R=h24ab # build-exp/h24ab.txz holds build-exp/h24a and h24b
. results/h200/logs/wgrad-experiments/round24/start.sh
B=build-exp/h24b/gemmq
variants "main: a75:75,2:build-exp/h24a/gemmq b75:75,2 b100:100,1 b75m5:75,5"
