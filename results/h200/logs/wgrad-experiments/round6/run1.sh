#!/usr/bin/env bash
# run1.sh: g's copies at d_out < 64 (sixth round, call 1), from the repository root on one H200:
#   bash results/h200/logs/wgrad-experiments/round6/run1.sh   (writes into $OUT)
# build/ from main (f3d8b57); build-exp/gemmq-gbox from main with gbox.patch: GQX_GBOX=1 gives
# g's map a box of exactly d_out columns where d_out < 64 (48 or 32, instead of 64 columns of which
# the rest are filled with zeros), GQX_GPROMO=1 gives g's map no L2 promotion.
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
. results/h200/logs/wgrad-experiments/round4/check.sh
check gb build-exp/gemmq-gbox GQX_GBOX=1
check gbp build-exp/gemmq-gbox GQX_GBOX=1 GQX_GPROMO=1
cp /tmp/r/check-*.json /tmp/r/runs.txt $OUT/ 2>/dev/null
for rep in 1 2; do
run a_$rep build/gemmq
run gb_$rep build-exp/gemmq-gbox GQX_GBOX=1
run gp_$rep build-exp/gemmq-gbox GQX_GPROMO=1
run gbp_$rep build-exp/gemmq-gbox GQX_GBOX=1 GQX_GPROMO=1
done
tar czf $OUT/r.tgz -C /tmp r
