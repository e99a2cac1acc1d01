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
. results/h200/logs/wgrad-experiments/round22/start.sh
pp="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
chk() { # GPU SETTING
  CUDA_VISIBLE_DEVICES=$1 GQX_DYN=$2 timed "check65537 g$1 $2" 100 /tmp/r/check65537-$2.log $B \
    accuracy results/h200/logs/wgrad-experiments/round18/probe-65537.json -q $pp \
    -o /tmp/r/check65537-$2.json
}
(chk 0 75,2; chk 0 100,1) &
(chk 1 0,1; chk 1 50,3) &
wait
snap "checks done"
step() { # G VARIANT I
  local e=
  case $2 in d75) e=75,2 ;; d50) e=50,2 ;; d90) e=90,2 ;; esac
  GQX_DYN=$e timed "t$1 $2 $3" 100 /tmp/r/t$1_$2_$3.log $B bench \
    results/h200/logs/wgrad-experiments/round23/probe-128.json $pp \
    --iterations 200 -o /tmp/r/t$1_$2_$3.json --md /tmp/r/t$1_$2_$3.md
}
interleaved "main d75 d50 d90" step
snap "all done"
