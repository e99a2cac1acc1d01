#!/usr/bin/env bash
# run2.sh: eighth round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round8/run2.sh   (writes $OUT/r.tgz and runs.txt)
# build/gemmq is main (fcebf2f); build-exp/gemmq-xp2 is fcebf2f with xp2.patch (xp.patch plus):
# GQX_XP=4 clusters of four N tiles of 128x128 sharing g (each CTA copies a 32-row half of one of
# g's boxes, multicast to all four); GQX_XP=8 clusters of the two M tiles of 64x256 (n256 at
# d_out 128) sharing x (each CTA copies two of x's four boxes, multicast to both); GQX_XS=1 x
# with no L2 hint and no promotion at either tile. cs (GQX_XP=2 GQX_XS=1) is call 1's best.
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
. results/h200/logs/wgrad-experiments/round4/check.sh
CHECK_PROGS="-p gemmq:split:n128:s3 -p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4"
check c4 build-exp/gemmq-xp2 GQX_XP=4
check c4s build-exp/gemmq-xp2 GQX_XP=4 GQX_XS=1
check xm build-exp/gemmq-xp2 GQX_XP=8
check xms build-exp/gemmq-xp2 GQX_XP=8 GQX_XS=1
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
for rep in 1 2; do
run a_$rep build/gemmq
run cs_$rep build-exp/gemmq-xp2 GQX_XP=2 GQX_XS=1
run c4_$rep build-exp/gemmq-xp2 GQX_XP=4
run c4s_$rep build-exp/gemmq-xp2 GQX_XP=4 GQX_XS=1
run xm_$rep build-exp/gemmq-xp2 GQX_XP=8
run xms_$rep build-exp/gemmq-xp2 GQX_XP=8 GQX_XS=1
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
done
