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
. results/h200/logs/wgrad-experiments/round22/start.sh
pp="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
chk() { # GPU SETTING
  CUDA_VISIBLE_DEVICES=$1 GQX_DYN=$2 timed "check65537 g$1 $2" 100 /tmp/r/check65537-$2.log $B \
    accuracy results/h200/logs/wgrad-experiments/round18/probe-65537.json -q $pp \
    -o /tmp/r/check65537-$2.json
}
chk 0 75,2 & chk 1 0,1 &
wait
snap "checks done"
step() { # G VARIANT I
  local e=
  case $2 in d100) e=100,1 ;; d90) e=90,2 ;; d75) e=75,2 ;; d50) e=50,2 ;; d0) e=0,2 ;; esac
  GQX_DYN=$e timed "t$1 $2 $3" 100 /tmp/r/t$1_$2_$3.log $B bench \
    results/h200/logs/wgrad-experiments/round23/probe-128.json $pp \
    --iterations 200 -o /tmp/r/t$1_$2_$3.json --md /tmp/r/t$1_$2_$3.md
}
interleaved "main d75 d50 d0" step
snap "all done"
