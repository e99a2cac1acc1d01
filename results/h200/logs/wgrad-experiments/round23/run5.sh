#!/usr/bin/env bash
# run5.sh: twenty-third round, call 8 (an H200 ×2), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round23/run5.sh   (writes $OUT/all.tgz at the end)
# build-exp/h23d.txz: three gemmq builds of run4.sh's tree (the 64×384 tile) with compile-time
# knobs in kernels/gemm_wgmma.cu: a = as run4.sh's (a ring of 4 stages of 56 KiB, pipelined
# consumers), b = GQX_N384_SMEM=200 (3 stages), c = GQX_N384_PIPE=0 (consumers not pipelined).
# On each GPU at once: probe-4096.json (4096x128, T 40963 and 65537, FP32 out) with n256:s4,
# n384:s5, n384:s6, 200 timed replays, builds a, b, c interleaved, twice (vG_BUILD_N).
c=8
R=h23d # unpacked into the repository root: build-exp/h23d's binaries are ./gemmq-{a,b,c}
. results/h200/logs/wgrad-experiments/round22/start.sh
for g in 0 1; do
  (
    export CUDA_VISIBLE_DEVICES=$g
    for i in 1 2; do
      for b in a b c; do
        timed "v$g $b $i" 100 /tmp/r/v${g}_${b}_$i.log ./gemmq-$b bench results/h200/logs/wgrad-experiments/round23/probe-4096.json \
          -p gemmq:split:n256:s4 -p gemmq:split:n384:s5 -p gemmq:split:n384:s6 --iterations 200 -q \
          -o /tmp/r/v${g}_${b}_$i.json --md /tmp/r/v${g}_${b}_$i.md
      done
    done
  ) &
done
wait
snap "all done"
