#!/usr/bin/env bash
# run1.sh: seventeenth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round17/run1.sh   (writes $OUT/all.tgz after every step)
# build-exp/s17-1.txz holds build-exp/s17/gemmq-m (main, 155ebf4's kernels) and the build of
# -DGQX_STAG=1 (round17/stagger.patch: of the two pipelined consumer warpgroups of a CTA, the
# second closes its first chunk after one round instead of two, so that the two never drain at
# the same K-block), with its gpu_test_gpu_{kernels,programs}, and build-exp/s17/gemmq-c4 (a
# diagnostic: main with `CHUNK_ROUNDS = PIPE ? 4 : 1` in gq_wg_cfg, no stagger, so half as many
# drains as main's). The GPU tests of st, the FP64 check of m, st and c4, then the memory-bound
# bench of m, st and c4, six times each, interleaved (round16/start.sh's ab, written out for six).
c=1
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/s17-1.txz
mkdir -p build && cp build-exp/s17/gemmq-st build/gemmq
for x in kernels programs; do
  (cd build && timeout 120 ../build-exp/s17/gpu_test_gpu_$x-st > /tmp/o/gpu_test_gpu_$x-st.log 2>&1)
  snap "gpu_test_gpu_$x-st rc=$?"
done
CHECK_PROGS="-p gemmq:split:n128:s3 -p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4"
check m build-exp/s17/gemmq-m
check st build-exp/s17/gemmq-st
check c4 build-exp/s17/gemmq-c4
snap "checks done"
for i in 1 2 3 4 5 6; do
  run m_$i build-exp/s17/gemmq-m; run st_$i build-exp/s17/gemmq-st; run c4_$i build-exp/s17/gemmq-c4
done
snap "ab done"
tables "m st c4"
