#!/usr/bin/env bash
# run5.sh: nineteenth round, call 5 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round19/run5.sh   (writes $OUT/all.tgz after every step)
# Call 4's gemmq was built from bd8e247's tree before it was committed, so its results name
# 52d34bf-dirty. build-exp/head-19b.txz holds build/gemmq rebuilt at bd8e247 (the same code);
# this call makes the committed results with it: the bench of protocols/k1_wgrad.json
# (programs.md) and the accuracy of the 18 programs and cublas:default on
# protocols/k1_wgrad_odd.json (10 seeds × 20 reruns).
c=5
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/head-19b.txz
build/gemmq info | head -3 > /tmp/o/info-$c.txt
{ time build/gemmq bench --device 0 -o /tmp/o/programs.json --md /tmp/o/programs.md protocols/k1_wgrad.json ; } > /tmp/o/programs-bench.log 2>&1
snap "bench rc=$?"
progs=""; for p in gemmq:det gemmq:streamk; do progs="$progs -p $p"; done
for n in 64 128 256 320; do for s in 1 2 3 4; do progs="$progs -p gemmq:split:n$n:s$s"; done; done
{ time build/gemmq accuracy --device 0 $progs -p cublas:default -o /tmp/o/accuracy-k1-programs.json protocols/k1_wgrad_odd.json ; } > /tmp/o/accuracy-k1-programs.log 2>&1
snap "accuracy rc=$?"
grep -v "^real\|^user\|^sys" /tmp/o/accuracy-k1-programs.log | tail -1
