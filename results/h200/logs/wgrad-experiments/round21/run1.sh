#!/usr/bin/env bash
# run1.sh: twenty-first round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round21/run1.sh   (writes $OUT/all.tgz after every step)
# build-exp/r21.txz holds build-exp/r21/gemmq of 5cd15b1, stripped: the bench keeps every
# replay's span and puts a 95 % bootstrap interval on best split / cuBLASLt best (its kernels
# are e876441's). Then:
# 1. gemmq bench protocols/k1_wgrad.json, every program, 20 timed replays (programs.json, .md);
# 2. the memory-bound points (protocols/k1_wgrad_membound.json) with the four split programs of
#    ../round3/bench.sh and n320:s3, n320:s4: three runs of 20 timed replays (i20_N), then two
#    of 200 (i200_N).
c=1
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/r21.txz
B=build-exp/r21/gemmq
{ time $B bench --device 0 -o /tmp/o/programs.json --md /tmp/o/programs.md protocols/k1_wgrad.json ; } > /tmp/o/programs-bench.log 2>&1
snap "bench rc=$?"
progs="$progs -p gemmq:split:n320:s3 -p gemmq:split:n320:s4"
# mb NAME ITERATIONS: one bench of the memory-bound points into /tmp/r/NAME.{json,md,log}
mb() {
  local s; s=$(date +%s)
  timeout 300 $B bench $P $progs --iterations "$2" -q -o /tmp/r/$1.json --md /tmp/r/$1.md > /tmp/r/$1.log 2>&1
  snap "$1 rc=$? $(( $(date +%s) - s )) s"; }
for i in 1 2 3; do mb i20_$i 20; done
for i in 1 2; do mb i200_$i 200; done
