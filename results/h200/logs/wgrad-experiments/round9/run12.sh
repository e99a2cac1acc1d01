#!/usr/bin/env bash
# run12.sh: ninth round, call 12 (one H200), from the repository root: the accuracy of every
# program of ours on a730d18 (build/gemmq), as round8/run4.sh ran it on cc71600
#   bash results/h200/logs/wgrad-experiments/round9/run12.sh   (writes $OUT/all.tgz)
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,serial --format=csv,noheader > /tmp/o/gpu.txt
progs=""; for p in gemmq:det gemmq:streamk; do progs="$progs -p $p"; done
for n in 64 128 256; do for s in 1 2 3 4; do progs="$progs -p gemmq:split:n$n:s$s"; done; done
{ time build/gemmq accuracy --device 0 $progs -p cublas:default -o /tmp/o/accuracy-k1-programs.json protocols/k1_wgrad_odd.json ; } > /tmp/o/accuracy-k1-programs.log 2>&1
echo "accuracy rc=$?" | tee -a /tmp/o/runs.txt
tar czf $OUT/all.tgz -C /tmp o
