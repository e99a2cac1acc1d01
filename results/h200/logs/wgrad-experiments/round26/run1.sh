#!/usr/bin/env bash
# run1.sh: twenty-sixth round, call 1 (an H200), from the repository root:
#   C=1 bash results/h200/logs/wgrad-experiments/round26/run1.sh   (writes $OUT/all.tgz)
# build-exp/h26a.txz: build-exp/h26a/gemmq and gpu_test_gpu_kernels of tail.patch (on fe16708),
# and build-exp/h25m/gemmq, main's kernels (4105f22's build). tail.patch's knob
# GQX_TAIL=KB:BN[:S] (environment; split programs at d_out 128): the GEMM runs the first K-blocks
# and lets its programmatic dependent start at once; the dependent, 64×BN tiles over the last KB
# K-blocks (S splits), adds its sums into out (FP32), or (BF16, S = 1) waits for the GEMM, adds
# the GEMM's FP32 sums to its own and rounds them into out: no rounding kernel.
# The FP64 checks (T = 65537 with KB = 32, BN = 64 and 128; T = 1025 and 16173 of
# ../round4/probe-check.json with KB = 4) and the GPU kernel test with KB = 4; then
# ../round23/probe-128.json with n256:s4 and n320:s4, 200 timed replays, interleaved, twice.
c=${C:?give the call number in C}
R=h26a
pp="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
. results/h200/logs/wgrad-experiments/round25/start.sh
checks "t32:GQX_TAIL=32:64 u32:GQX_TAIL=32:128"
checks_odd "t4:GQX_TAIL=4:64"
snap "check t4 done"
gtests "t4:GQX_TAIL=4:64"
variants "m:BIN=build-exp/h25m/gemmq x0 t16:GQX_TAIL=16:64 t32:GQX_TAIL=32:64 t64:GQX_TAIL=64:64 u32:GQX_TAIL=32:128 s32:GQX_TAIL=32:64:2"
