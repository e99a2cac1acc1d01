#!/usr/bin/env bash
# run2.sh: what a cluster costs, step by step (wgrad-experiments.md, fourth round), from the
# repository root on one H200: bash results/h200/logs/wgrad-experiments/round4/run2.sh
# (writes $OUT/r.tgz; then ../round3/summarize.py tsv /tmp/r/<run>.json... > variants-2.tsv).
# build/gemmq from main; build-exp/gemmq-cl2 from main with cluster-steps.patch: the committed
# kernel unchanged without GQX_CL; with GQX_CL=m, clusters of 2:
# m = 0 launched as clusters only, 1 + every stage released to both CTAs, 2 + g shared (each box
# copied whole by one CTA, multicast), 3 pairs of M tiles sharing x instead (n256 at d_out 128).
RUN_TIMEOUT=60
R4=results/h200/logs/wgrad-experiments/round4
. results/h200/logs/wgrad-experiments/round3/bench.sh
. $R4/check.sh
for m in 0 1 2 3; do check cl$m build-exp/gemmq-cl2 GQX_CL=$m; done
for rep in 1 2; do
run a_$rep build/gemmq
run b_$rep build-exp/gemmq-cl2
run c0_$rep build-exp/gemmq-cl2 GQX_CL=0
run c1_$rep build-exp/gemmq-cl2 GQX_CL=1
run c2_$rep build-exp/gemmq-cl2 GQX_CL=2
run c3_$rep build-exp/gemmq-cl2 GQX_CL=3
done
tar czf $OUT/r.tgz -C /tmp r
