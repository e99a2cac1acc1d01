#!/usr/bin/env bash
# run11.sh: twenty-fourth round, call 11 (an H200 ×1 or ×2), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round24/run11.sh   (writes $OUT/all.tgz)
# build-exp/h24hh.txz holds build-exp/h24h (run10.sh) and build/gemmq and
# build/tests/gpu_test_gpu_bench of f67f902 (main).
# 1. The GPU test of the bench (f67f902), run from build/ as ctest runs it, on GPU 0
#    (bench-test.log).
# 2. h24h: probe-128.json with n256:s4 and n320:s4, 200 timed replays,
#    interleaved, twice on each GPU: main (no knob), d90 (90,2), d75 (75,2), d50 (50,2).
c=${C:?give the call number in C}
R=h24hh # build-exp/h24hh.txz, unpacked by ../round22/start.sh
. results/h200/logs/wgrad-experiments/round22/start.sh
B=build-exp/h24h/gemmq
(cd build && CUDA_VISIBLE_DEVICES=0 timed "bench-test" 200 /tmp/o/bench-test.log ./tests/gpu_test_gpu_bench)
snap "bench test done"
pp="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
gpus=$(nvidia-smi -L | wc -l)
if [ "$gpus" -lt 2 ]; then
  interleaved() {
    export CUDA_VISIBLE_DEVICES=0
    for i in 1 2; do for v in $1; do "$2" 0 "$v" $i; done; done
  }
fi
step() { # G VARIANT I
  local e=
  case $2 in d90) e=90,2 ;; d75) e=75,2 ;; d50) e=50,2 ;; esac
  GQX_DYN=$e timed "t$1 $2 $3" 100 /tmp/r/t$1_$2_$3.log $B bench \
    results/h200/logs/wgrad-experiments/round23/probe-128.json $pp \
    --iterations 200 -o /tmp/r/t$1_$2_$3.json --md /tmp/r/t$1_$2_$3.md
}
interleaved "main d90 d75 d50" step
snap "all done"
