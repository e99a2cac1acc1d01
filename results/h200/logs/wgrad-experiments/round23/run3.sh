#!/usr/bin/env bash
# run3.sh: twenty-third round, calls 3 and later (an H200 ×2 each), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round23/run3.sh   (writes $OUT/all.tgz at the end)
# build-exp/h23b.txz holds build/gemmq and build/tests/gpu_test_gpu_bench of the tree after
# 455c7c4 with the bench's cuBLASLt config (committed after this call's first run), and
# build-exp/tma-policy (../round5/tma-policy.cu, built as its header says, with ../stream.h's own
# barrier arrival), stripped. On each GPU at once (CUDA_VISIBLE_DEVICES):
# 1. gpu_test_gpu_bench, run from build/ as ctest runs it (bench-test-gG.log);
# 2. probe-128.json (d_out 128, T = 65537) with the four split programs that are ever the best
#    there, 200 timed replays, --sm-clock: each cuBLASLt algorithm's config recorded (pG);
# 3. tma-policy at T = 65537: x streamed alone with each L2 policy and ring depth, next to
#    n128:s4 / n128:s3 and cuBLASLt's algorithm 0 at d_out 32 (policy-gG.txt);
# 4. from call 6 on, the layout probe (../round22/layout.cu, build-exp/r22l.txz): the GPCs and
#    where 128 CTAs in pairs land (layout-gG.txt).
c=${C:?give the call number in C}
tar xJf build-exp/r22l.txz
R=h23b # ../round22/start.sh unpacks build-exp/$R.txz (its B, build-exp/h23b/gemmq, is not used)
. results/h200/logs/wgrad-experiments/round22/start.sh
for g in 0 1; do
  (
    export CUDA_VISIBLE_DEVICES=$g
    (cd build && timed "bench-test g$g" 200 /tmp/o/bench-test-g$g.log ./tests/gpu_test_gpu_bench)
    timed p$g 200 /tmp/r/p$g.log build/gemmq bench results/h200/logs/wgrad-experiments/round23/probe-128.json \
      -p gemmq:split:n128:s3 -p gemmq:split:n128:s4 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4 \
      --iterations 200 --sm-clock -q -o /tmp/r/p$g.json --md /tmp/r/p$g.md
    timed "policy g$g" 200 /tmp/o/policy-g$g.txt build-exp/tma-policy 65537
    timed "layout g$g" 60 /tmp/o/layout-g$g.txt build-exp/r22l/layout
  ) &
done
wait
smi_after
snap "all done"
