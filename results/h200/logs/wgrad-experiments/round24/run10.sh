#!/usr/bin/env bash
# run10.sh: twenty-fourth round, call 10 (an H200 ×2, or ×1), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round24/run10.sh   (writes $OUT/all.tgz)
# build-exp/h24h.txz: build-exp/h24h/gemmq, h24g (GQX_DYN=PCT,MIN[,1]) with the fixed part and
# the pieces in whole rounds of the ring (the fixed part rounded down, the pieces up, to the
# stages), so that only a share's last piece ends inside a round: the producer's slower path for
# a round across pieces then runs about once per split, not once per piece. The FP64 check at
# T = 65537 with 75,2 and 0,1; then probe-128.json with n256:s4 and n320:s4, 200 timed
# replays, interleaved, twice on each GPU: main (no knob), d90 (90,2), d75 (75,2), d50 (50,2),
# d0 (0,2), d0dry (0,2,1).
c=${C:?give the call number in C}
R=h24h
. results/h200/logs/wgrad-experiments/round22/start.sh
pp="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
chk() { # GPU SETTING
  CUDA_VISIBLE_DEVICES=$1 GQX_DYN=$2 timed "check65537 g$1 $2" 100 /tmp/r/check65537-$2.log $B \
    accuracy results/h200/logs/wgrad-experiments/round18/probe-65537.json -q $pp \
    -o /tmp/r/check65537-$2.json
}
# on an H200 ×1 both checks run on GPU 0, one after the other, and `interleaved` on GPU 0 alone
gpus=$(nvidia-smi -L | wc -l)
if [ "$gpus" -ge 2 ]; then chk 0 75,2 & chk 1 0,1 & wait; else chk 0 75,2; chk 0 0,1; fi
if [ "$gpus" -lt 2 ]; then
  interleaved() {
    export CUDA_VISIBLE_DEVICES=0
    for i in 1 2; do for v in $1; do "$2" 0 "$v" $i; done; done
  }
fi
snap "checks done"
step() { # G VARIANT I
  local e=
  case $2 in d90) e=90,2 ;; d75) e=75,2 ;; d50) e=50,2 ;; d0) e=0,2 ;; d0dry) e=0,2,1 ;; esac
  GQX_DYN=$e timed "t$1 $2 $3" 100 /tmp/r/t$1_$2_$3.log $B bench \
    results/h200/logs/wgrad-experiments/round23/probe-128.json $pp \
    --iterations 200 -o /tmp/r/t$1_$2_$3.json --md /tmp/r/t$1_$2_$3.md
}
interleaved "main d90 d75 d50 d0 d0dry" step
snap "all done"
