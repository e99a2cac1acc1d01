#!/usr/bin/env bash
# run4.sh: ninth round, call 4 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round9/run4.sh   (writes $OUT/all.tgz after every step)
# build-exp/gemmq-main is main (21af3c3); build-exp/gemmq-gpol the same with gpol.patch, knobs for
# the shared copies only (d_out 128, x six L2s or more): GQX_GH=1 copies g evict-normal instead of
# evict-last, GQX_GP=1 encodes g's map without L2 promotion, GQX_SPREAD=1 launches the clusters
# with cudaClusterSchedulingPolicySpread.
. results/h200/logs/wgrad-experiments/round9/prologue.sh
check gb build-exp/gemmq-gpol GQX_GH=1 GQX_GP=1 GQX_SPREAD=1
snap "checks done"
for i in 1 2; do
  run a_$i build-exp/gemmq-main; run k0_$i build-exp/gemmq-gpol; run gh_$i build-exp/gemmq-gpol GQX_GH=1
  run gp_$i build-exp/gemmq-gpol GQX_GP=1; run gb_$i build-exp/gemmq-gpol GQX_GH=1 GQX_GP=1
  run sp_$i build-exp/gemmq-gpol GQX_SPREAD=1
  snap "pass $i done"
done
