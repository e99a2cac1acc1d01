#!/usr/bin/env bash
# run2.sh: twenty-fifth round, call 2 (an H200), from the repository root:
#   C=2 bash results/h200/logs/wgrad-experiments/round25/run2.sh   (writes $OUT/all.tgz)
# build-exp/h25b.txz: build-exp/h25b/gemmq and gpu_test_gpu_kernels of fin.patch (on 4105f22), and
# build-exp/h25m/gemmq, 4105f22's own. fin.patch's knob GQX_FIN=D (environment): BF16 out of a
# split program finished by the tile's last split, where the grid is resident at once and the
# tiles are whole: every other split gives it D K-blocks, adds its sums and counts them; the last
# one's producer waits for the counts, then its consumers read the others' sums, add their own
# and store BF16 out. No rounding kernel. The FP64 checks (T = 65537, and T = 1025 and 16173 of
# ../round4/probe-check.json) and the GPU kernel test with D = 4 (and 1); then probe-128.json with
# n256:s4 and n320:s4, 200 timed replays, interleaved, twice: main's build (m), the patch without
# the knob (x0), D = 2, 3, 4, 6, 8.
c=${C:?give the call number in C}
R=h25b
pp="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
. results/h200/logs/wgrad-experiments/round25/start.sh
checks "f4:GQX_FIN=4 f1:GQX_FIN=1"
checks_odd "f4:GQX_FIN=4"
gtests "f4:GQX_FIN=4 f1:GQX_FIN=1"
variants "m:BIN=build-exp/h25m/gemmq x0 f2:GQX_FIN=2 f3:GQX_FIN=3 f4:GQX_FIN=4 f6:GQX_FIN=6 f8:GQX_FIN=8"
