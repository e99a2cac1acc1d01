#!/usr/bin/env bash
# run10.sh: ninth round, call 10 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round9/run10.sh   (writes $OUT/all.tgz after every step)
# build-exp/gemmq-main is main (21af3c3); build-exp/gemmq-promo the same with promo128.patch: an
# L2 promotion of 128 bytes instead of 256 for g's map (GQX_GP128=1), for x's map where x does not
# stream (GQX_XP128=1), and for x's map of the shared copies instead of none (GQX_XS128=1).
. results/h200/logs/wgrad-experiments/round9/prologue.sh
for i in 1 2; do
  run a_$i build-exp/gemmq-main; run n_$i build-exp/gemmq-promo; run g_$i build-exp/gemmq-promo GQX_GP128=1
  run x_$i build-exp/gemmq-promo GQX_XP128=1; run gx_$i build-exp/gemmq-promo GQX_GP128=1 GQX_XP128=1
  run gxs_$i build-exp/gemmq-promo GQX_GP128=1 GQX_XP128=1 GQX_XS128=1
  snap "pass $i done"
done
