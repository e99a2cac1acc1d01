#!/usr/bin/env bash
# run1.sh: twenty-second round, call 1 (an H200 ×2), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round22/run1.sh   (writes $OUT/all.tgz after every step)
# build-exp/r22a.txz holds build-exp/r22a/gemmq of 5ce4439, stripped (the bench keeps the spans of
# the two compared programs itself, 230ae5c; the progress line with the interval; kernels of
# e876441). At the same time:
# GPU 0: gemmq bench protocols/k1_wgrad.json, every program, 200 timed replays (programs.json, .md);
# GPU 1: the memory-bound points with the six split programs of ../round21/run2.sh's step 2,
#        200 timed replays, three times (g1_1 to g1_3), with the progress lines.
c=1
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/r22a.txz
B=build-exp/r22a/gemmq
progs="$progs -p gemmq:split:n320:s3 -p gemmq:split:n320:s4"
(
  for i in 1 2 3; do
    s=$(date +%s)
    timeout 150 $B bench --device 1 $P $progs --iterations 200 -o /tmp/r/g1_$i.json --md /tmp/r/g1_$i.md > /tmp/r/g1_$i.log 2>&1
    echo "g1_$i rc=$? $(( $(date +%s) - s )) s" >> /tmp/o/runs.txt
  done
) &
{ time timeout 520 $B bench --device 0 --iterations 200 -o /tmp/o/programs.json --md /tmp/o/programs.md protocols/k1_wgrad.json ; } > /tmp/o/programs-bench.log 2>&1
snap "bench rc=$?"
wait
snap "all done"
