#!/usr/bin/env bash
# run13.sh: twenty-fourth round, call 13 (an H200 ×1 or ×2), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round24/run13.sh   (writes $OUT/all.tgz)
# build-exp/h24j.txz: build-exp/h24j/gemmq, h24i (GQX_DYN=PCT,MIN,DRY,LAG) where a piece that
# ends with a round has the next piece taken before the round starts, so that the round takes
# the path of the fixed shares (h24h and h24i gathered such a round into a list, at about 0.3 µs
# a round: call 12's dry variant). The FP64 check at T = 65537 with 75,2 and 0,1; then
# probe-128.json with n256:s4 and n320:s4, 200 timed replays, interleaved, twice on each GPU:
# main (no knob), d90 (90,2), d75 (75,2), d50 (50,2), dry (75,2,1).
c=${C:?give the call number in C}
R=h24j
. results/h200/logs/wgrad-experiments/round24/start.sh
checks "75,2 0,1" ""
variants "main: d90:90,2 d75:75,2 d50:50,2 dry:75,2,1"
