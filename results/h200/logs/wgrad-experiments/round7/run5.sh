#!/usr/bin/env bash
# run5.sh: seventh round, call 5 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round7/run5.sh   (writes $OUT/r.tgz and runs.txt)
# build/gemmq main (a08b4df); build-exp/gemmq-law as in call 4 (lean-asm-wait.patch); with
# producer-knobs.patch (law plus compile-time knobs): gemmq-prod2 built with -DGQX_PROD2 (two
# producer warps, one copying g's boxes, one x's, each waiting for the stage's release itself),
# gemmq-xfirst with -DGQX_XFIRST (one producer that copies x's boxes before g's).
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
. results/h200/logs/wgrad-experiments/round4/check.sh
check prod2 build-exp/gemmq-prod2
check xfirst build-exp/gemmq-xfirst
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
for rep in 1 2; do
run a_$rep build/gemmq
run law_$rep build-exp/gemmq-law
run prod2_$rep build-exp/gemmq-prod2
run xfirst_$rep build-exp/gemmq-xfirst
done
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
