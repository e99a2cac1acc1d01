#!/usr/bin/env bash
# run2.sh: twenty-first round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round21/run2.sh   (writes $OUT/all.tgz after every step)
# build-exp/r21b.txz holds build-exp/r21b/gemmq of 31a5d70, stripped (5cd15b1's intervals, the
# Markdown written once at the end; kernels of e876441). Then:
# 1. gemmq bench protocols/k1_wgrad.json, every program, 200 timed replays (programs.json, .md);
# 2. the memory-bound points (protocols/k1_wgrad_membound.json) with the four split programs of
#    ../round3/bench.sh and n320:s3, n320:s4, 200 timed replays (i200_1).
c=2
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/r21b.txz
B=build-exp/r21b/gemmq
{ time timeout 450 $B bench --device 0 --iterations 200 -o /tmp/o/programs.json --md /tmp/o/programs.md protocols/k1_wgrad.json ; } > /tmp/o/programs-bench.log 2>&1
snap "bench rc=$?"
progs="$progs -p gemmq:split:n320:s3 -p gemmq:split:n320:s4"
s=$(date +%s)
timeout 110 $B bench $P $progs --iterations 200 -q -o /tmp/r/i200_1.json --md /tmp/r/i200_1.md > /tmp/r/i200_1.log 2>&1
snap "i200_1 rc=$? $(( $(date +%s) - s )) s"
