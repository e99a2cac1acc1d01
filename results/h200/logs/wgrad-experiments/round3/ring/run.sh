#!/usr/bin/env bash
# run.sh: the ring-depth runs of wgrad-experiments.md's third round, from the repository root on
# one H200: bash results/h200/logs/wgrad-experiments/round3/ring/run.sh (writes $OUT/r.tgz).
# build/gemmq from main; build-exp/gemmq-rd from a tree with ../../ring-depth.patch and then
# ring-policy-knobs.patch's policy part applied (ring-policy-knobs.patch is the whole diff of that
# tree against main: both patches together, and GEMMQ_WG_STAGES capped at the deepest ring the
# shared memory holds). Then: ../summarize.py tsv /tmp/r/<run>.json... > variants.tsv
. results/h200/logs/wgrad-experiments/round3/bench.sh
for rep in 1 2; do
run a_$rep build/gemmq
run r4x0_$rep build-exp/gemmq-rd GEMMQ_WG_STAGES=4
run r4x2_$rep build-exp/gemmq-rd GEMMQ_WG_STAGES=4 GQX_XPOL=2
run r6x0_$rep build-exp/gemmq-rd GEMMQ_WG_STAGES=6
run r6x1_$rep build-exp/gemmq-rd GEMMQ_WG_STAGES=6 GQX_XPOL=1
run r6x2_$rep build-exp/gemmq-rd GEMMQ_WG_STAGES=6 GQX_XPOL=2
run r8x0_$rep build-exp/gemmq-rd
run r8x1_$rep build-exp/gemmq-rd GQX_XPOL=1
run r8x2_$rep build-exp/gemmq-rd GQX_XPOL=2
run r3x2_$rep build-exp/gemmq-rd GEMMQ_WG_STAGES=3 GQX_XPOL=2
done
tar czf $OUT/r.tgz -C /tmp r
