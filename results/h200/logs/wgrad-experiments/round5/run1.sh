#!/usr/bin/env bash
# run1.sh: the fifth round's first timed call (wgrad-experiments.md, fifth round), from the
# repository root on one H200: bash results/h200/logs/wgrad-experiments/round5/run1.sh (writes
# $OUT/r.tgz; then ../round3/summarize.py tsv /tmp/r/<run>.json... > variants-1.tsv).
# build/gemmq from main; build-exp/tma-policy from round5/tma-policy.cu (nvcc line at its top);
# build-exp/gemmq-pol from main with policy-nohint.patch (round 3's policy knobs, round 4's
# one-cta.patch, and GQX_XPOL=3 / GQX_GPOL=3: x's or g's copies with no cache hint);
# build-exp/gemmq-pol1 the same built with -DCMAKE_CUDA_FLAGS=-DGQX_ONE_CTA=220 (one CTA per SM,
# a ring of 220 KiB: 9 stages for the 64x128 tile, 6 for 128x128).
RUN_TIMEOUT=60
R5=results/h200/logs/wgrad-experiments/round5
. results/h200/logs/wgrad-experiments/round3/bench.sh
. results/h200/logs/wgrad-experiments/round4/check.sh
timeout 120 build-exp/tma-policy > /tmp/r/tma-policy.txt 2>&1; echo "tma-policy rc=$?" | tee -a /tmp/r/runs.txt
check pn build-exp/gemmq-pol GQX_XPOL=3 GQX_GPOL=3
check p1 build-exp/gemmq-pol1
check p1n build-exp/gemmq-pol1 GQX_XPOL=3 GQX_GPOL=3
for rep in 1 2; do
run a_$rep build/gemmq
run pn_$rep build-exp/gemmq-pol GQX_XPOL=3 GQX_GPOL=3
run px_$rep build-exp/gemmq-pol GQX_XPOL=3
run p1_$rep build-exp/gemmq-pol1
run p1n_$rep build-exp/gemmq-pol1 GQX_XPOL=3 GQX_GPOL=3
done
tar czf $OUT/r.tgz -C /tmp r
