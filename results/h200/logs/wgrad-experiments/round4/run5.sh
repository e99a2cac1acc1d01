#!/usr/bin/env bash
# run5.sh: what the split's atomic epilogue costs (wgrad-experiments.md, fourth round), from the
# repository root on one H200: bash results/h200/logs/wgrad-experiments/round4/run5.sh
# (writes $OUT/r.tgz; then ../round3/summarize.py tsv /tmp/r/<run>.json... > variants-5.tsv).
# build/gemmq from main; build-exp/gemmq-epi from main with epilogue.patch: GQX_EPI=4 adds the
# split sums with float4 atomics (lanes swap halves first) instead of float2; GQX_EPI=1 adds
# nothing (wrong sums: how long the kernel takes without its epilogue).
RUN_TIMEOUT=60
R4=results/h200/logs/wgrad-experiments/round4
. results/h200/logs/wgrad-experiments/round3/bench.sh
. $R4/check.sh
check epi4 build-exp/gemmq-epi GQX_EPI=4
for rep in 1 2; do
run a_$rep build/gemmq
run e0_$rep build-exp/gemmq-epi
run e4_$rep build-exp/gemmq-epi GQX_EPI=4
run e1_$rep build-exp/gemmq-epi GQX_EPI=1
done
tar czf $OUT/r.tgz -C /tmp r
