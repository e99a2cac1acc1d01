#!/usr/bin/env bash
# run13.sh: twenty-fourth round, call 13 (an H200 ×1 or ×2), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round24/run13.sh   (writes $OUT/all.tgz)
# build-exp/h24j.txz: build-exp/h24j/gemmq, h24i (GQX_DYN=PCT,MIN,DRY,LAG) where a piece that
# ends with a round has the next piece taken before the round starts, so that the round takes
# the path of the fixed shares (h24h and h24i gathered such a round into a list, at about 0.3 µs
# a round: call 12's dry variant). The FP64 check at T = 65537 with 75,2 and 0,1; then
# probe-128.json with n256:s4 and n320:s4, 200 timed replays, interleaved, twice on each GPU:
# main (no knob), d90 (90,2), d75 (75,2), d50 (50,2), dry (75,2,1).
c=${C:?give the call number in C}
R=h24j
. results/h200/logs/wgrad-experiments/round22/start.sh
pp="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
gpus=$(nvidia-smi -L | wc -l)
if [ "$gpus" -lt 2 ]; then
  interleaved() {
    export CUDA_VISIBLE_DEVICES=0
    for i in 1 2; do for v in $1; do "$2" 0 "$v" $i; done; done
  }
fi
chk() { # SETTING
  CUDA_VISIBLE_DEVICES=0 GQX_DYN=$1 timed "check65537 $1" 100 /tmp/r/check65537-$1.log $B \
    accuracy results/h200/logs/wgrad-experiments/round18/probe-65537.json -q $pp \
    -o /tmp/r/check65537-$1.json
}
chk 75,2; chk 0,1
snap "checks done"
step() { # G VARIANT I
  local e=
  case $2 in d90) e=90,2 ;; d75) e=75,2 ;; d50) e=50,2 ;; dry) e=75,2,1 ;; esac
  GQX_DYN=$e timed "t$1 $2 $3" 100 /tmp/r/t$1_$2_$3.log $B bench \
    results/h200/logs/wgrad-experiments/round23/probe-128.json $pp \
    --iterations 200 -o /tmp/r/t$1_$2_$3.json --md /tmp/r/t$1_$2_$3.md
}
interleaved "main d90 d75 d50 dry" step
snap "all done"
