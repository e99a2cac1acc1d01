#!/usr/bin/env bash
# run8.sh: twenty-fourth round, call 8 (an H200 ×2, or ×1), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round24/run8.sh   (writes $OUT/all.tgz)
# build-exp/h24f.txz: build-exp/h24f/gemmq, h24e's shares (own share first, its rest in halves)
# with the first CTA of a cluster deciding alone and noting each piece (its K-blocks) for the
# other, and the end looked up at once: when a split's own rest is handed out, it loads the other
# shares' counters, asks the one with most left for MIN K-blocks, and ends without asking when
# none has any. The FP64 check at T = 65537 with 75,2 (GPU 0) and 0,1 (GPU 1); then
# probe-128.json with n256:s4 and n320:s4, 200 timed replays, interleaved, twice on each GPU:
# main (no knob), d90 (90,2), d75 (75,2), d50 (50,2), d0 (0,2).
c=${C:?give the call number in C}
R=h24f
. results/h200/logs/wgrad-experiments/round24/start.sh
checks "75,2" "0,1"
variants "main: d90:90,2 d75:75,2 d50:50,2 d0:0,2"
