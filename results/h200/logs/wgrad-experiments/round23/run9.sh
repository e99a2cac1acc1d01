#!/usr/bin/env bash
# run9.sh: twenty-third round, calls 20 and later (an H200 ×2 each), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round23/run9.sh   (writes $OUT/all.tgz at the end)
# build-exp/h23f.txz: ./gemmq-tune and build/ (gemmq, tests/gpu_test_gpu_kernels) of d119d93 with
# tune.patch (the split programs whose two M tiles share x time 0, 2, 4 and 8 idle clusters
# before their grid when prepared and keep the fastest; GEMMQ_SPLIT_PAD=P sets P;
# GQX_TUNE_VERBOSE=1 prints the medians and the choice), and ./gemmq-main (2616a9e's gemmq).
# GPU 0: the FP64 check of n256:s4 and n320:s4 with GEMMQ_SPLIT_PAD=4 and 8. GPU 1:
# gpu_test_gpu_kernels of the tuned build. Then on each GPU at once: probe-128.json with n128:s4,
# n256:s4, n320:s4, 200 timed replays, main and tune interleaved, twice (tG_BUILD_N; the
# choices in tG_tune_N.log).
c=${C:?give the call number in C}
R=h23f
. results/h200/logs/wgrad-experiments/round22/start.sh
pp="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
(
  export CUDA_VISIBLE_DEVICES=0
  for v in 4 8; do
    GEMMQ_SPLIT_PAD=$v timed "check pad $v" 100 /tmp/r/check$v.log ./gemmq-tune accuracy \
      results/h200/logs/wgrad-experiments/round4/probe-check.json -q $pp -o /tmp/r/check$v.json
    GEMMQ_SPLIT_PAD=$v timed "check65537 pad $v" 100 /tmp/r/check65537$v.log ./gemmq-tune accuracy \
      results/h200/logs/wgrad-experiments/round18/probe-65537.json -q $pp -o /tmp/r/check65537$v.json
  done
) &
(
  export CUDA_VISIBLE_DEVICES=1
  cd build && timed "kernels test g1" 150 /tmp/o/gpu_test_gpu_kernels-tune.log ./tests/gpu_test_gpu_kernels
) &
wait
step() { # G BUILD I
  GQX_TUNE_VERBOSE=1 timed "t$1 $2 $3" 100 /tmp/r/t$1_$2_$3.log ./gemmq-$2 bench \
    results/h200/logs/wgrad-experiments/round23/probe-128.json -p gemmq:split:n128:s4 $pp \
    --iterations 200 -o /tmp/r/t$1_$2_$3.json --md /tmp/r/t$1_$2_$3.md
}
interleaved "main tune" step
snap "all done"
