#!/usr/bin/env bash
# run1.sh: seventh round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round7/run1.sh   (writes $OUT/r.tgz and runs.txt)
# build/gemmq from main (a08b4df); build-exp/gemmq-r7 from a08b4df with knobs.patch:
# GQX_ROT=D: the CTAs of N tile j take their split's K-blocks starting at j·D (mod their count),
# so that the CTAs of one split no longer read the same rows of g at the same moment;
# GQX_TICKET=1: the split programs' atomic epilogue without the memset before the kernel: the
# first CTA of a tile to finish stores its sums, the others wait for it and add theirs.
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
. results/h200/logs/wgrad-experiments/round4/check.sh
check r1 build-exp/gemmq-r7 GQX_ROT=1
check r4 build-exp/gemmq-r7 GQX_ROT=4
check t build-exp/gemmq-r7 GQX_TICKET=1
check rt build-exp/gemmq-r7 GQX_ROT=1 GQX_TICKET=1
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
for rep in 1 2; do
run a_$rep build/gemmq
run x0_$rep build-exp/gemmq-r7
run r1_$rep build-exp/gemmq-r7 GQX_ROT=1
run r4_$rep build-exp/gemmq-r7 GQX_ROT=4
run t_$rep build-exp/gemmq-r7 GQX_TICKET=1
run rt_$rep build-exp/gemmq-r7 GQX_ROT=1 GQX_TICKET=1
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
done
