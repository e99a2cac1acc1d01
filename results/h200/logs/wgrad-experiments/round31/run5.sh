#!/usr/bin/env bash
# run5.sh: thirty-first round, call 5 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round31/run5.sh
# build-exp/r31d.txz as in run4.sh (3f7b57c; the kernels of 44beafa).
# 1. the main job's qualification, the embedded smoke protocol (smoke.json, smoke.log);
# 2. the memory-bound bench on this H200: gemmq bench --iterations 200
#    protocols/k1_wgrad_membound.json with the 16 split programs (cuBLASLt's top 8 beside them).
# Everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r31d
step smoke 100 $o/smoke.log build/gemmq qualify -o $o/smoke.json
pack
progs=""; for n in 64 128 256 320; do for s in 1 2 3 4; do progs="$progs -p gemmq:split:n$n:s$s"; done; done
step membound 140 $o/membound.log build/gemmq bench --iterations 200 $progs \
  -o $o/membound.json --md $o/membound.md protocols/k1_wgrad_membound.json
tail -n 1 $o/smoke.log; tail -n 1 $o/membound.log; cat $o/runs.txt
pack
