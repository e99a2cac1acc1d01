#!/usr/bin/env bash
# run9.sh: ninth round, call 9 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round9/run9.sh   (writes $OUT/all.tgz after every step)
# build-exp/gemmq-main is main (21af3c3); build-exp/gemmq-xpromo the same with xpromo.patch:
# GQX_XPROMO=1 or 2 gives x's map of the shared copies (d_out 128, x six L2s or more; otherwise
# without promotion) an L2 promotion of 128 or 256 bytes; its copies keep no cache hint.
. results/h200/logs/wgrad-experiments/round9/prologue.sh
for i in 1 2; do
  run a_$i build-exp/gemmq-main; run x0_$i build-exp/gemmq-xpromo
  run x1_$i build-exp/gemmq-xpromo GQX_XPROMO=1; run x2_$i build-exp/gemmq-xpromo GQX_XPROMO=2
  snap "pass $i done"
done
