#!/usr/bin/env bash
# run.sh: the pipelined consumer of wgrad-experiments.md's third round, from the repository root on
# one H200: bash results/h200/logs/wgrad-experiments/round3/pipeline/run.sh (writes $OUT/r.tgz).
# build/gemmq from main; build-exp/gemmq-pipe from main with pipeline.patch's consumer loop and
# wait_one only (the ring as committed); build-exp/gemmq-pipe5 with all of pipeline.patch (one
# more stage where the shared memory holds it). Then: ../summarize.py tsv /tmp/r/<run>.json...
. results/h200/logs/wgrad-experiments/round3/bench.sh
for rep in 1 2 3; do
run a_$rep build/gemmq
run p_$rep build-exp/gemmq-pipe
run q_$rep build-exp/gemmq-pipe5
done
tar czf $OUT/r.tgz -C /tmp r
