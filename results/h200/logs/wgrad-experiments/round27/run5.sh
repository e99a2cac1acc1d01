#!/usr/bin/env bash
# run5.sh: twenty-seventh round, call 5 (an H200), from the repository root:
#   C=5 bash results/h200/logs/wgrad-experiments/round27/run5.sh   (writes $OUT/all.tgz)
# build-exp/h27r.txz: build-exp/h27r/m/gemmq, main (6e5c23c), and build-exp/h27r/rotK/gemmq, main
# with rot.patch built with -DGQX_ROT=K: the order in which a consumer warpgroup's TMA adds its
# boxes of 64 rows × 32 columns (1: from box z mod boxes on, z the split; 2: odd splits from the
# last box back), so that the splits of a tile, which end close together, add into other lines at
# a time. The FP64 check at T = 65537 of each rot build; then ../round23/probe-128.json with
# n256:s4 and n320:s4, 200 timed replays, m and the two, interleaved, four times.
c=${C:?give the call number in C}
R=h27r
pp="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
. results/h200/logs/wgrad-experiments/round25/start.sh
checks "rot1:BIN=build-exp/h27r/rot1/gemmq rot2:BIN=build-exp/h27r/rot2/gemmq"
variants "m:BIN=build-exp/h27r/m/gemmq rot1:BIN=build-exp/h27r/rot1/gemmq rot2:BIN=build-exp/h27r/rot2/gemmq"
for i in 3 4; do for v in m rot1 rot2; do v_step 0 $v $i; done; done
snap "all four done"
