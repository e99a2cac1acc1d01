#!/usr/bin/env bash
# run6.sh: twenty-fourth round, call 6 (an H200 ×2), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round24/run6.sh   (writes $OUT/all.tgz)
# build-exp/h24e.txz: build-exp/h24e/gemmq, dynamic shares that keep each split on its own even
# share first: split z takes PCT % of share z, then the rest of it a piece at a time (half of
# what is left, at least MIN K-blocks) from share z's counter, and once that is spent, pieces of
# MIN K-blocks from the other shares' counters in turn (z + 1, z + 2, … mod P). The FP64 check
# at T = 65537 with 75,2 (GPU 0) and 0,1 (GPU 1); then probe-128.json with n256:s4 and n320:s4,
# 200 timed replays, interleaved, twice on each GPU: main (no knob), d75 (75,2), d50 (50,2),
# d0 (0,2).
c=${C:?give the call number in C}
R=h24e
. results/h200/logs/wgrad-experiments/round24/start.sh
checks "75,2" "0,1"
variants "main: d75:75,2 d50:50,2 d0:0,2"
