#!/usr/bin/env bash
# run11.sh: the landed change (a730d18: L2 promotion of 128 bytes) measured (ninth round, call 11),
# from the repository root on one H200: bash results/h200/logs/wgrad-experiments/round9/run11.sh
# (writes $OUT/all.tgz after every step: /tmp/o, with /tmp/r of ../round3/bench.sh inside it).
# build/gemmq is a730d18; build-exp/gemmq-main 21af3c3 (the kernel before); build-exp/
# gpu_test_gpu_{kernels,programs,det_processes} the GPU tests of a730d18 that run its kernels,
# run from build/ as ctest runs them.
. results/h200/logs/wgrad-experiments/round9/prologue.sh
gputest() { (cd build && timeout ${2:-150} ../build-exp/gpu_test_gpu_$1 > /tmp/o/gpu_test_gpu_$1.log 2>&1); snap "gpu_test_gpu_$1 rc=$?"; }
{ time build/gemmq bench --device 0 -o /tmp/o/programs.json --md /tmp/o/programs.md protocols/k1_wgrad.json ; } > /tmp/o/programs-bench.log 2>&1
snap "bench rc=$?"
run m_1 build-exp/gemmq-main; run n_1 build/gemmq; run m_2 build-exp/gemmq-main; run n_2 build/gemmq
snap "ab done"
gputest kernels; gputest programs 100; gputest det_processes 100
