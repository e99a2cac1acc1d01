#!/usr/bin/env bash
# run3.sh: twenty-first round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round21/run3.sh   (writes $OUT/all.tgz after every step)
# build-exp/r21b.txz as in run2.sh (31a5d70). The memory-bound points with the six split programs
# of run2.sh's step 2, 200 timed replays, twice (i200_1, i200_2).
c=3
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/r21b.txz
B=build-exp/r21b/gemmq
progs="$progs -p gemmq:split:n320:s3 -p gemmq:split:n320:s4"
for i in 1 2; do
  s=$(date +%s)
  timeout 110 $B bench $P $progs --iterations 200 -q -o /tmp/r/i200_$i.json --md /tmp/r/i200_$i.md > /tmp/r/i200_$i.log 2>&1
  snap "i200_$i rc=$? $(( $(date +%s) - s )) s"
done
