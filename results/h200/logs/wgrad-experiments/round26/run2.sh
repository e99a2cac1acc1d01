#!/usr/bin/env bash
# run2.sh: twenty-sixth round, call 2 (an H200), from the repository root:
#   C=2 bash results/h200/logs/wgrad-experiments/round26/run2.sh   (writes $OUT/all.tgz)
# build-exp/h26b.txz: build-exp/h26b/gemmq and gpu_test_gpu_kernels of rd.patch (on 3473529), and
# build-exp/h25m/gemmq, main's kernels (4105f22's build). rd.patch's knob GQX_RD=1 (environment):
# each consumer warpgroup of a split program waits for its TMA adds only until the TMA unit has
# read them from the ring (cp.async.bulk.wait_group.read), not until they are done, before its
# CTA leaves. The FP64 check at T = 65537 and the GPU kernel test with it; then
# ../round23/probe-128.json with n256:s4 and n320:s4, 200 timed replays, interleaved, twice:
# main's build (m, mb), the patch without the knob (x0) and with it (rd, rdb).
c=${C:?give the call number in C}
R=h26b
pp="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
. results/h200/logs/wgrad-experiments/round25/start.sh
checks "rd:GQX_RD=1"
gtests "rd:GQX_RD=1"
variants "m:BIN=build-exp/h25m/gemmq x0 rd:GQX_RD=1 mb:BIN=build-exp/h25m/gemmq rdb:GQX_RD=1"
