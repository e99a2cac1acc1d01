#!/usr/bin/env bash
# run10.sh: twenty-fourth round, call 10 (an H200 ×2, or ×1), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round24/run10.sh   (writes $OUT/all.tgz)
# build-exp/h24h.txz: build-exp/h24h/gemmq, h24g (GQX_DYN=PCT,MIN[,1]) with the fixed part and
# the pieces in whole rounds of the ring (the fixed part rounded down, the pieces up, to the
# stages), so that only a share's last piece ends inside a round: the producer's slower path for
# a round across pieces then runs about once per split, not once per piece. The FP64 check at
# T = 65537 with 75,2 and 0,1; then probe-128.json with n256:s4 and n320:s4, 200 timed
# replays, interleaved, twice on each GPU: main (no knob), d90 (90,2), d75 (75,2), d50 (50,2),
# d0 (0,2), d0dry (0,2,1).
c=${C:?give the call number in C}
R=h24h
. results/h200/logs/wgrad-experiments/round24/start.sh
checks "75,2" "0,1"
variants "main: d90:90,2 d75:75,2 d50:50,2 d0:0,2 d0dry:0,2,1"
