#!/usr/bin/env bash
# run5.sh: twenty-third round, call 8 (an H200 ×2), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round23/run5.sh   (writes $OUT/all.tgz at the end)
# build-exp/h23d.txz: three gemmq builds of run4.sh's tree (the 64×384 tile) with compile-time
# knobs in kernels/gemm_wgmma.cu: a = as run4.sh's (a ring of 4 stages of 56 KiB, pipelined
# consumers), b = GQX_N384_SMEM=200 (3 stages), c = GQX_N384_PIPE=0 (consumers not pipelined).
# On each GPU at once: probe-4096.json (4096x128, T 40963 and 65537, FP32 out) with n256:s4,
# n384:s5, n384:s6, 200 timed replays, builds a, b, c interleaved, twice (vG_BUILD_N). (The run had
# the loops written out; they now use ../round22/start.sh's interleaved.)
c=8
R=h23d # unpacked into the repository root: build-exp/h23d's binaries are ./gemmq-{a,b,c}
. results/h200/logs/wgrad-experiments/round22/start.sh
# step G BUILD I: one bench of build BUILD on GPU G, the I-th
step() {
  timed "v$1 $2 $3" 100 /tmp/r/v$1_$2_$3.log ./gemmq-$2 bench results/h200/logs/wgrad-experiments/round23/probe-4096.json \
    -p gemmq:split:n256:s4 -p gemmq:split:n384:s5 -p gemmq:split:n384:s6 --iterations 200 -q \
    -o /tmp/r/v$1_$2_$3.json --md /tmp/r/v$1_$2_$3.md
}
interleaved "a b c" step
snap "all done"
