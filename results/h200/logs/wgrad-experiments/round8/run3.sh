#!/usr/bin/env bash
# run3.sh: eighth round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round8/run3.sh   (writes $OUT/r.tgz and runs.txt)
# build/gemmq is main (fcebf2f); build-exp/gemmq-xp3 is fcebf2f with xp3.patch (xp2.patch plus):
# GQX_XP=9 clusters of 2 x 2 tiles of 64x256 (n256 at d_out 128): the two M tiles of an N tile
# share x (each copies two of its four boxes), the two N tiles of an M tile share g (each copies
# a 32-row half of g's box); GQX_XP=16 + n: knob n with consumers that wait and release every
# stage but multiply nothing (wrong sums: the copies' own time), 16 alone at main's copies.
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
. results/h200/logs/wgrad-experiments/round4/check.sh
CHECK_PROGS="-p gemmq:split:n256:s3 -p gemmq:split:n256:s4"
check x9 build-exp/gemmq-xp3 GQX_XP=9
check x9s build-exp/gemmq-xp3 GQX_XP=9 GQX_XS=1
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
for rep in 1 2; do
run a_$rep build/gemmq
run an_$rep build-exp/gemmq-xp3 GQX_XP=16
run c4s_$rep build-exp/gemmq-xp3 GQX_XP=4 GQX_XS=1
run c4sn_$rep build-exp/gemmq-xp3 GQX_XP=20 GQX_XS=1
run xms_$rep build-exp/gemmq-xp3 GQX_XP=8 GQX_XS=1
run xmsn_$rep build-exp/gemmq-xp3 GQX_XP=24 GQX_XS=1
run x9_$rep build-exp/gemmq-xp3 GQX_XP=9
run x9s_$rep build-exp/gemmq-xp3 GQX_XP=9 GQX_XS=1
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
done
