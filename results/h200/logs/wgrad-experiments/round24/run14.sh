#!/usr/bin/env bash
# run14.sh: twenty-fourth round, call 14 (an H200 ×1 or ×2), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round24/run14.sh   (writes $OUT/all.tgz)
# build-exp/h24k.txz: build-exp/h24k/gemmq, h24j (dyn.patch) with the splits' counts (seen,
# hint) read and written by unrolled selects, so that they stay in registers (h24j indexed them
# at run time: 48 bytes of stack in the 64×256 kernel, 24 now). The FP64 check at T = 65537 with
# 75,2 and 0,1; then probe-128.json with n256:s4 and n320:s4, 200 timed replays, interleaved,
# twice on each GPU: main (no knob), d90 (90,2), d75 (75,2), dry (75,2,1).
c=${C:?give the call number in C}
R=h24k
. results/h200/logs/wgrad-experiments/round24/start.sh
checks "75,2" "0,1"
variants "main: d90:90,2 d75:75,2 dry:75,2,1"
