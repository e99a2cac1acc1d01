#!/usr/bin/env bash
# run1.sh: eighth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round8/run1.sh   (writes $OUT/r.tgz and runs.txt)
# build/gemmq is main (fcebf2f); build-exp/gemmq-xp is fcebf2f with xp.patch: at the 128x128
# tile (d_out 128) GQX_XP=1 copies g and x in one 3D copy each per stage, GQX_XP=2 launches
# clusters of two N tiles that share g (each CTA copies one of g's two boxes, multicast to both),
# GQX_XP=3 both of those (x 3D, g shared), GQX_XS=1 copies x with no L2 hint and no promotion
# (the streaming copy of d_out <= 64). Without a knob its kernels' PTX is main's.
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
. results/h200/logs/wgrad-experiments/round4/check.sh
CHECK_PROGS="-p gemmq:split:n128:s3 -p gemmq:split:n128:s4"
check x3 build-exp/gemmq-xp GQX_XP=1
check c build-exp/gemmq-xp GQX_XP=2
check cs build-exp/gemmq-xp GQX_XP=2 GQX_XS=1
check c3 build-exp/gemmq-xp GQX_XP=3
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
for rep in 1 2; do
run a_$rep build/gemmq
run n_$rep build-exp/gemmq-xp
run x3_$rep build-exp/gemmq-xp GQX_XP=1
run c_$rep build-exp/gemmq-xp GQX_XP=2
run cs_$rep build-exp/gemmq-xp GQX_XP=2 GQX_XS=1
run c3_$rep build-exp/gemmq-xp GQX_XP=3
run xs_$rep build-exp/gemmq-xp GQX_XS=1
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
done
