#!/usr/bin/env bash
# run4.sh: sixth round, call 5 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round6/run4.sh   (writes $OUT/r.tgz and runs.txt)
# build/gemmq from 43aef25; build-exp/gemmq-cl from 43aef25 with cluster-order.patch: GQX_CL=1
# launches every wgrad kernel as clusters of (1, 2, 1) that share nothing; GQX_PERM=1 gives the
# CTAs their (M tile, N tile, split) in another order: pairs of N tiles taken split fastest, so
# that under clusters (which fill the SMs GPC by GPC, placement.txt) every GPC holds CTAs of
# every split, as without clusters.
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
. results/h200/logs/wgrad-experiments/round4/check.sh
check clp build-exp/gemmq-cl GQX_CL=1 GQX_PERM=1
check p build-exp/gemmq-cl GQX_PERM=1
for rep in 1 2; do
run a_$rep build/gemmq
run cl_$rep build-exp/gemmq-cl GQX_CL=1
run clp_$rep build-exp/gemmq-cl GQX_CL=1 GQX_PERM=1
run p_$rep build-exp/gemmq-cl GQX_PERM=1
done
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
