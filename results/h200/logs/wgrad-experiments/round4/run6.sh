#!/usr/bin/env bash
# run6.sh: one CTA per SM with a deeper ring fixed at compile time (wgrad-experiments.md, fourth
# round), from the repository root on one H200:
# bash results/h200/logs/wgrad-experiments/round4/run6.sh (writes $OUT/r.tgz; then
# ../round3/summarize.py tsv /tmp/r/<run>.json... > variants-6.tsv).
# build/gemmq from main; build-exp/gemmq-one200 and -one150 from main with one-cta.patch, built
# with -DCMAKE_CUDA_FLAGS=-DGQX_ONE_CTA=200 and =150: every tile one CTA per SM, its ring 200 or
# 150 KiB (the 64x128 tile of d_out <= 64: 8 or 6 stages instead of 4).
RUN_TIMEOUT=60
R4=results/h200/logs/wgrad-experiments/round4
. results/h200/logs/wgrad-experiments/round3/bench.sh
. $R4/check.sh
check one200 build-exp/gemmq-one200
check one150 build-exp/gemmq-one150
for rep in 1 2; do
run a_$rep build/gemmq
run s8_$rep build-exp/gemmq-one200
run s6_$rep build-exp/gemmq-one150
done
tar czf $OUT/r.tgz -C /tmp r
