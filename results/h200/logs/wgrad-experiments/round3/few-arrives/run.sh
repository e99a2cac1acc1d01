#!/usr/bin/env bash
# run.sh: one arrive per consumer warpgroup (wgrad-experiments.md, third round), from the
# repository root on one H200: bash results/h200/logs/wgrad-experiments/round3/few-arrives/run.sh
# (writes $OUT/r.tgz). build/gemmq from main; build-exp/gemmq-few and
# build-exp/gpu_test_gpu_kernels-few from main with few-arrives.patch (x-multicast.patch plus
# GQX_FEW). Then: ../summarize.py tsv /tmp/r/<run>.json... > variants.tsv
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
for e in "GQX_XMC=1 GQX_FEW=1" "GQX_FEW=1"; do
  env $e timeout 100 build-exp/gpu_test_gpu_kernels-few > "/tmp/r/gpu_test-$e.log" 2>&1; echo "gpu test $e rc=$?" | tee -a /tmp/r/runs.txt
  grep -E "checks, " "/tmp/r/gpu_test-$e.log"
done
for rep in 1 2; do
run a_$rep build/gemmq
run m_$rep build-exp/gemmq-few GQX_XMC=1
run mf_$rep build-exp/gemmq-few GQX_XMC=1 GQX_FEW=1
run f_$rep build-exp/gemmq-few GQX_FEW=1
done
tar czf $OUT/r.tgz -C /tmp r
