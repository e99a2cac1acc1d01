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
. results/h200/logs/wgrad-experiments/round24/start.sh
B=build-exp/h24h/gemmq
(cd build && CUDA_VISIBLE_DEVICES=0 timed "bench-test" 200 /tmp/o/bench-test.log ./tests/gpu_test_gpu_bench)
snap "bench test done"
variants "main: d90:90,2 d75:75,2 d50:50,2"
