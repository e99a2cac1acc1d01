#!/usr/bin/env bash
# run4.sh: twenty-fourth round, call 4 (an H200 ×2), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round24/run4.sh   (writes $OUT/all.tgz)
# build-exp/h24c.txz: build-exp/h24c/gemmq, the dynamic shares (GQX_DYN=PCT,MIN) with a producer
# that issues a round within one piece as the fixed shares do (consecutive rows, no list of
# K-blocks) and gathers a list only for a round across pieces. The FP64 check at T = 65537 with
# 75,2 (GPU 0) and 0,1 (GPU 1); then probe-128.json with n256:s4 and n320:s4, 200 timed replays,
# interleaved, twice on each GPU: main (no knob), d100 (100,1), d90 (90,2), d75 (75,2), d50
# (50,2).
c=${C:?give the call number in C}
R=h24c
. results/h200/logs/wgrad-experiments/round24/start.sh
checks "75,2" "0,1"
variants "main: d100:100,1 d90:90,2 d75:75,2 d50:50,2"
