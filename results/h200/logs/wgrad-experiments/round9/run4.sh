#!/usr/bin/env bash
# run4.sh: ninth round, call 4 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round9/run4.sh   (writes $OUT/all.tgz after every step)
# build-exp/gemmq-main is main (21af3c3); build-exp/gemmq-gpol the same with gpol.patch, knobs for
# the shared copies only (d_out 128, x six L2s or more): GQX_GH=1 copies g evict-normal instead of
# evict-last, GQX_GP=1 encodes g's map without L2 promotion, GQX_SPREAD=1 launches the clusters
# with cudaClusterSchedulingPolicySpread.
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
. results/h200/logs/wgrad-experiments/round4/check.sh
mkdir -p /tmp/o; ln -sfn /tmp/r /tmp/o/r
snap() { echo "$1" | tee -a /tmp/o/runs.txt; tar czhf $OUT/all.tgz -C /tmp o; }
CHECK_PROGS="-p gemmq:split:n128:s3 -p gemmq:split:n128:s4 -p gemmq:split:n256:s4 -p gemmq:split:n64:s2"
check gb build-exp/gemmq-gpol GQX_GH=1 GQX_GP=1 GQX_SPREAD=1
snap "checks done"
for i in 1 2; do
  run a_$i build-exp/gemmq-main; run k0_$i build-exp/gemmq-gpol; run gh_$i build-exp/gemmq-gpol GQX_GH=1
  run gp_$i build-exp/gemmq-gpol GQX_GP=1; run gb_$i build-exp/gemmq-gpol GQX_GH=1 GQX_GP=1
  run sp_$i build-exp/gemmq-gpol GQX_SPREAD=1
  snap "pass $i done"
done
