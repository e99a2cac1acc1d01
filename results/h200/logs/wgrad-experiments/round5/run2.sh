#!/usr/bin/env bash
# run2.sh: the fifth round's second timed call: x's tensor map without L2 promotion (as the
# stream of run1.sh found fastest), from the repository root on one H200:
# bash results/h200/logs/wgrad-experiments/round5/run2.sh (writes $OUT/r.tgz).
# build/gemmq from main; build-exp/tma-policy as in run1.sh, here at T = 16384;
# build-exp/gemmq-pol from main with policy-promo.patch (policy-nohint.patch plus GQX_XPROMO /
# GQX_GPROMO: the L2 promotion of x's / g's map, 0 256 B as committed, 1 none, 2 128 B);
# build-exp/gemmq-pol1 the same built with -DCMAKE_CUDA_FLAGS=-DGQX_ONE_CTA=220.
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
. results/h200/logs/wgrad-experiments/round4/check.sh
timeout 120 build-exp/tma-policy 16384 > /tmp/r/tma-policy-16384.txt 2>&1; echo "tma-policy 16384 rc=$?" | tee -a /tmp/r/runs.txt
check q1 build-exp/gemmq-pol GQX_XPROMO=1 GQX_XPOL=3
check q2 build-exp/gemmq-pol1 GQX_XPROMO=1 GQX_XPOL=3
for rep in 1 2; do
run a_$rep build/gemmq
run q0_$rep build-exp/gemmq-pol GQX_XPROMO=1
run q1_$rep build-exp/gemmq-pol GQX_XPROMO=1 GQX_XPOL=3
run q2_$rep build-exp/gemmq-pol1 GQX_XPROMO=1 GQX_XPOL=3
run q3_$rep build-exp/gemmq-pol1 GQX_XPROMO=1
run q4_$rep build-exp/gemmq-pol GQX_XPROMO=1 GQX_GPROMO=1
done
tar czf $OUT/r.tgz -C /tmp r
