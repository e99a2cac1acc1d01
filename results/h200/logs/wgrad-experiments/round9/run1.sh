#!/usr/bin/env bash
# run1.sh: ninth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round9/run1.sh   (writes $OUT/all.tgz after every step)
# build-exp/gemmq-main is main (21af3c3); build-exp/gemmq-fin the same with fin.patch: GQX_FIN=1
# ends a split tile with BF16 out through a ticket (the last CTA adds its own sums in registers
# instead of atomically, then rounds the tile to out), 2 the same with the workspace zeroed behind
# it (no memset before the kernel), 3 as 2 for FP32 out as well.
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
. results/h200/logs/wgrad-experiments/round4/check.sh
mkdir -p /tmp/o; ln -sfn /tmp/r /tmp/o/r
snap() { echo "$1" | tee -a /tmp/o/runs.txt; tar czhf $OUT/all.tgz -C /tmp o; }
CHECK_PROGS="-p gemmq:split:n128:s3 -p gemmq:split:n128:s4 -p gemmq:split:n256:s4 -p gemmq:split:n64:s2"
check f1 build-exp/gemmq-fin GQX_FIN=1; check f2 build-exp/gemmq-fin GQX_FIN=2
check f3 build-exp/gemmq-fin GQX_FIN=3
snap "checks done"
for i in 1 2; do
  run a_$i build-exp/gemmq-main; run f0_$i build-exp/gemmq-fin; run f1_$i build-exp/gemmq-fin GQX_FIN=1
  run f2_$i build-exp/gemmq-fin GQX_FIN=2; run f3_$i build-exp/gemmq-fin GQX_FIN=3
  snap "pass $i done"
done
(cd build && GQX_FIN=3 timeout 200 ../build-exp/gpu_test_gpu_kernels-fin > /tmp/o/gpu_test_gpu_kernels-f3.log 2>&1); snap "gpu_test_gpu_kernels GQX_FIN=3 rc=$?"
