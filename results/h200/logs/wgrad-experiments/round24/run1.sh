#!/usr/bin/env bash
# run1.sh: twenty-fourth round, call 1 and later (an H200 ×2), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round24/run1.sh   (writes $OUT/all.tgz)
# build-exp/h24a.txz: build-exp/h24a/gemmq, the working tree after f67f902 with dynamic shares
# (GQX_DYN=PCT,MIN: the split programs whose two M tiles share x give each split PCT % of its
# even share as a fixed first part and hand out the rest from a counter per tile, at least MIN
# K-blocks at a time). First the FP64 check at T = 65537 (where x is shared) with four settings,
# two per GPU; then probe-128.json with n256:s4 and n320:s4 (200 timed replays) without the knob
# (main) and with PCT,MIN = 75,2, 50,2 and 90,2 (d75, d50, d90), interleaved, twice, on each GPU.
c=${C:?give the call number in C}
R=h24a
. results/h200/logs/wgrad-experiments/round24/start.sh
checks "75,2 100,1" "0,1 50,3"
variants "main: d75:75,2 d50:50,2 d90:90,2"
