#!/usr/bin/env bash
# run.sh: x shared by clusters of two M tiles (wgrad-experiments.md, third round), from the
# repository root on one H200: bash results/h200/logs/wgrad-experiments/round3/x-multicast/run.sh
# (writes $OUT/r.tgz). build/gemmq from main; build-exp/gemmq-xmc and
# build-exp/gpu_test_gpu_kernels-xmc from main with x-multicast.patch (round 1's
# cluster-multicast.patch, its automatic clusters turned off, plus GQX_XMC). Then:
# ../summarize.py tsv /tmp/r/<run>.json... > variants.tsv
P=protocols/k1_wgrad_membound.json
progs="-p gemmq:split:n128:s3 -p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4"
mkdir -p /tmp/r; nvidia-smi --query-gpu=name,serial,clocks.max.mem,clocks.max.sm --format=csv,noheader | tee /tmp/r/gpu.txt
GQX_XMC=1 timeout 120 build-exp/gpu_test_gpu_kernels-xmc > /tmp/r/gpu_test_gpu_kernels-xmc.log 2>&1; echo "gpu test rc=$?" | tee -a /tmp/r/runs.txt
grep -E "checks|speed goal" /tmp/r/gpu_test_gpu_kernels-xmc.log
run() { name=$1; bin=$2; shift 2
  s=$(date +%s)
  env "$@" timeout 60 $bin bench $P $progs -q -o /tmp/r/$name.json --md /tmp/r/$name.md > /tmp/r/$name.log 2>&1
  echo "$name rc=$? $(( $(date +%s) - s )) s: $bin $*" | tee -a /tmp/r/runs.txt; }
for rep in 1 2 3; do
run a_$rep build/gemmq
run m_$rep build-exp/gemmq-xmc GQX_XMC=1
run n_$rep build-exp/gemmq-xmc
done
tar czf $OUT/r.tgz -C /tmp r
