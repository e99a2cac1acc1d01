#!/usr/bin/env bash
# run.sh: x shared by clusters of two M tiles (wgrad-experiments.md, third round), from the
# repository root on one H200: bash results/h200/logs/wgrad-experiments/round3/x-multicast/run.sh
# (writes $OUT/r.tgz). build/gemmq from main; build-exp/gemmq-xmc and
# build-exp/gpu_test_gpu_kernels-xmc from main with x-multicast.patch (round 1's
# cluster-multicast.patch, its automatic clusters turned off, plus GQX_XMC). Then:
# ../summarize.py tsv /tmp/r/<run>.json... > variants.tsv
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
GQX_XMC=1 timeout 120 build-exp/gpu_test_gpu_kernels-xmc > /tmp/r/gpu_test_gpu_kernels-xmc.log 2>&1; echo "gpu test rc=$?" | tee -a /tmp/r/runs.txt
grep -E "checks|speed goal" /tmp/r/gpu_test_gpu_kernels-xmc.log
for rep in 1 2 3; do
run a_$rep build/gemmq
run m_$rep build-exp/gemmq-xmc GQX_XMC=1
run n_$rep build-exp/gemmq-xmc
done
tar czf $OUT/r.tgz -C /tmp r
