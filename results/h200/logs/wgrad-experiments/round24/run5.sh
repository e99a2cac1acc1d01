#!/usr/bin/env bash
# run5.sh: twenty-fourth round, call 5 (an H200 ×2), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round24/run5.sh   (writes $OUT/all.tgz)
# build-exp/h24d.txz: build-exp/h24d/gemmq, h24c's dynamic shares with the first CTA of a cluster
# reading the answer to its atomic add (and noting it for the other) a round after asking, not
# when the piece is needed. The FP64 check at T = 65537 with 75,2 (GPU 0) and 0,1 (GPU 1); then
# probe-128.json with n256:s4 and n320:s4, 200 timed replays, interleaved, twice on each GPU:
# main (no knob), d90 (90,2), d75 (75,2), d50 (50,2), d0 (0,2: all of K handed out in pieces).
c=${C:?give the call number in C}
R=h24d
. results/h200/logs/wgrad-experiments/round24/start.sh
checks "75,2" "0,1"
variants "main: d90:90,2 d75:75,2 d50:50,2 d0:0,2"
