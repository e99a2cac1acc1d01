#!/usr/bin/env bash
# run7.sh: twenty-fourth round, call 7 (an H200 ×2), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round24/run7.sh   (writes $OUT/all.tgz)
# build-exp/h24e.txz (run6.sh) with larger pieces: does the cost of the dynamic shares on a
# normal H200 come from the small last pieces, whose answers (atomic adds under the full load of
# the copies) come back after they are needed? probe-128.json with n256:s4 and n320:s4, 200 timed
# replays, interleaved, twice on each GPU: main (no knob), m8 (75,8), m16 (75,16), h8 (50,8).
c=${C:?give the call number in C}
R=h24e
. results/h200/logs/wgrad-experiments/round24/start.sh
variants "main: m8:75,8 m16:75,16 h8:50,8"
