#!/usr/bin/env bash
# run.sh: the pipelined consumer of wgrad-experiments.md's third round, from the repository root on
# one H200: bash results/h200/logs/wgrad-experiments/round3/pipeline/run.sh (writes $OUT/r.tgz).
# build/gemmq from main; build-exp/gemmq-pipe from main with pipeline.patch's consumer loop and
# wait_one only (the ring as committed); build-exp/gemmq-pipe5 with all of pipeline.patch (one
# more stage where the shared memory holds it). Then: ../summarize.py tsv /tmp/r/<run>.json...
P=protocols/k1_wgrad_membound.json
progs="-p gemmq:split:n128:s3 -p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4"
mkdir -p /tmp/r; nvidia-smi --query-gpu=name,serial,clocks.max.mem,clocks.max.sm --format=csv,noheader | tee /tmp/r/gpu.txt
run() { name=$1; bin=$2; shift 2
  s=$(date +%s)
  env "$@" $bin bench $P $progs -q -o /tmp/r/$name.json --md /tmp/r/$name.md > /tmp/r/$name.log 2>&1
  echo "$name rc=$? $(( $(date +%s) - s )) s: $bin $*" | tee -a /tmp/r/runs.txt; }
for rep in 1 2 3; do
run a_$rep build/gemmq
run p_$rep build-exp/gemmq-pipe
run q_$rep build-exp/gemmq-pipe5
done
tar czf $OUT/r.tgz -C /tmp r
