#!/usr/bin/env bash
# run4.sh: twenty-seventh round, call 4 (an H200), from the repository root:
#   C=4 bash results/h200/logs/wgrad-experiments/round27/run4.sh   (writes $OUT/all.tgz)
# build-exp/h27m.txz: build-exp/h27m/m/gemmq, main (6e5c23c), and build-exp/h27m/mixK/gemmq, main
# with mix.patch built with -DGQX_MIX=K: at the split's end some consumer warpgroups add their
# sums into the FP32 sums by float2 atomics from the registers, the others through the TMA unit as
# main does (1: the last warpgroup by atomics, 2: the first, 3: all). The FP64 check at T = 65537
# (../round18/probe-65537.json) of each mix build; then ../round23/probe-128.json with n256:s4 and
# n320:s4, 200 timed replays, m and the three, interleaved, four times.
c=${C:?give the call number in C}
R=h27m
pp="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
. results/h200/logs/wgrad-experiments/round25/start.sh
checks "mix1:BIN=build-exp/h27m/mix1/gemmq mix2:BIN=build-exp/h27m/mix2/gemmq mix3:BIN=build-exp/h27m/mix3/gemmq"
variants "m:BIN=build-exp/h27m/m/gemmq mix1:BIN=build-exp/h27m/mix1/gemmq mix2:BIN=build-exp/h27m/mix2/gemmq mix3:BIN=build-exp/h27m/mix3/gemmq"
for i in 3 4; do for v in m mix1 mix2 mix3; do v_step 0 $v $i; done; done
snap "all four done"
