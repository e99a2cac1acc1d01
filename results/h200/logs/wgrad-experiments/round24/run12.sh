#!/usr/bin/env bash
# run12.sh: twenty-fourth round, call 12 (an H200 ×1 or ×2), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round24/run12.sh   (writes $OUT/all.tgz)
# build-exp/h24i.txz: build-exp/h24i/gemmq, dyn.patch (h24h) with a fourth field, GQX_DYN=
# PCT,MIN,DRY,LAG: the first CTA reads the answer to its atomic add LAG rounds after asking (1 in
# h24h; 99: only when the piece is needed). Is the cost of the shares on a normal H200 the wait
# for that answer? probe-128.json with n256:s4 and n320:s4, 200 timed replays, interleaved,
# twice on each GPU: main (no knob), d75 (75,2), l3 (75,2,0,3), l99 (75,2,0,99), dry (75,2,1).
c=${C:?give the call number in C}
R=h24i
. results/h200/logs/wgrad-experiments/round24/start.sh
variants "main: d75:75,2 l3:75,2,0,3 l99:75,2,0,99 dry:75,2,1"
