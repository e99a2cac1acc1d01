#!/usr/bin/env bash
# run2.sh: twenty-fourth round, call 2 (an H200 ×2), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round24/run2.sh   (writes $OUT/all.tgz)
# build-exp/h24b.txz: build-exp/h24b/gemmq, h24a's dynamic shares with a third field, GQX_DYN=
# PCT,MIN,MODE: MODE 1 spreads the rest's K-blocks over P windows (K-block d of the rest read at
# (d % P)·W + d / P, W = rest / P), so that the splits read P windows of x at once, as the fixed
# shares do, not one. The FP64 check at T = 65537 with 75,2,1 (GPU 0) and 0,1,1 (GPU 1); then
# probe-128.json with n256:s4 and n320:s4, 200 timed replays, interleaved, twice on each GPU:
# main (no knob), d75 (75,2), d75p (75,2,1), d75b (75,64: few, large pieces), d90p (90,2,1).
c=${C:?give the call number in C}
R=h24b
. results/h200/logs/wgrad-experiments/round24/start.sh
checks "75,2,1" "0,1,1"
variants "main: d75:75,2 d75p:75,2,1 d75b:75,64 d90p:90,2,1"
