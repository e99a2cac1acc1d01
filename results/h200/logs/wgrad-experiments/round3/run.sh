#!/usr/bin/env bash
# run.sh: the third round of wgrad-experiments.md, run from the repository root on one H200 as
#   bash results/h200/logs/wgrad-experiments/round3/run.sh   (writes $OUT/r.tgz)
# It needs three gemmq binaries, built here with
#   cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGQ_CUDA_ARCHITECTURES=90a
#   cmake --build build --target gemmq
# build/gemmq from main as it is; build-exp/gemmq-xp from a tree with policy-knobs.patch applied;
# build-exp/gemmq-c1 from a tree with ../variants/dynamic-k-candidate1.patch, then
# candidate1-knobs.patch, applied. Then: summarize.py tsv /tmp/r/<run>.json... > variants.tsv
# one bench of the memory-bound points per variant, same H200; everything into one tar
. results/h200/logs/wgrad-experiments/round3/bench.sh
for rep in 1 2; do
run a$rep build/gemmq
run x1_$rep build-exp/gemmq-xp GQX_XPOL=1
run x2_$rep build-exp/gemmq-xp GQX_XPOL=2
run x2g1_$rep build-exp/gemmq-xp GQX_XPOL=2 GQX_GPOL=1
run c0_$rep build-exp/gemmq-c1
run c1_$rep build-exp/gemmq-c1 GQX_XPOL=1
run c2_$rep build-exp/gemmq-c1 GQX_XPOL=2
run cd_$rep build-exp/gemmq-c1 GQX_DYN=0
run cd2_$rep build-exp/gemmq-c1 GQX_DYN=0 GQX_XPOL=2
run cb_$rep build-exp/gemmq-c1 GQX_BK=64
run cb2_$rep build-exp/gemmq-c1 GQX_BK=64 GQX_XPOL=2
run cbd_$rep build-exp/gemmq-c1 GQX_BK=64 GQX_DYN=0
run ch5_$rep build-exp/gemmq-c1 GQX_CHUNK=512
run ch10_$rep build-exp/gemmq-c1 GQX_CHUNK=1024
done
tar czf $OUT/r.tgz -C /tmp r
