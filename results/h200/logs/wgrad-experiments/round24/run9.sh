#!/usr/bin/env bash
# run9.sh: twenty-fourth round, call 9 (an H200 ×2, or ×1), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round24/run9.sh   (writes $OUT/all.tgz)
# build-exp/h24g.txz: build-exp/h24g/gemmq, h24f with GQX_DYN=PCT,MIN,1 (dry): the same pieces
# and rounds with no atomic add (each answer the one it would be if no other split asked) and no
# taking from the other shares; is the cost of the dynamic shares on a normal H200 in the
# atomics or in the pieces? probe-128.json with n256:s4 and n320:s4, 200 timed replays,
# interleaved, twice on each GPU: main (no knob), d0 (0,2), d0dry (0,2,1), d50 (50,2), d50dry
# (50,2,1). No FP64 check (the pieces of h24f, checked in call 8).
c=${C:?give the call number in C}
R=h24g
. results/h200/logs/wgrad-experiments/round24/start.sh
variants "main: d0:0,2 d0dry:0,2,1 d50:50,2 d50dry:50,2,1"
