#!/usr/bin/env bash
# run7.sh: twenty-fourth round, call 7 (an H200 ×2), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round24/run7.sh   (writes $OUT/all.tgz)
# build-exp/h24e.txz (run6.sh) with larger pieces: does the cost of the dynamic shares on a
# normal H200 come from the small last pieces, whose answers (atomic adds under the full load of
# the copies) come back after they are needed? probe-128.json with n256:s4 and n320:s4, 200 timed
# replays, interleaved, twice on each GPU: main (no knob), m8 (75,8), m16 (75,16), h8 (50,8).
c=${C:?give the call number in C}
R=h24e
. results/h200/logs/wgrad-experiments/round22/start.sh
pp="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
step() { # G VARIANT I
  local e=
  case $2 in m8) e=75,8 ;; m16) e=75,16 ;; h8) e=50,8 ;; esac
  GQX_DYN=$e timed "t$1 $2 $3" 100 /tmp/r/t$1_$2_$3.log $B bench \
    results/h200/logs/wgrad-experiments/round23/probe-128.json $pp \
    --iterations 200 -o /tmp/r/t$1_$2_$3.json --md /tmp/r/t$1_$2_$3.md
}
interleaved "main m8 m16 h8" step
snap "all done"
