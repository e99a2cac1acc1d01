#!/usr/bin/env bash
# run6.sh: thirtieth round, call 6 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round30/run6.sh
# build-exp/r30l.txz as in run5.sh (9b2e530's code). The memory-bound bench on another H200:
# gemmq bench --iterations 200 protocols/k1_wgrad_membound.json with the 16 split programs
# (cuBLASLt's top 8 beside them). Everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r30l
progs=""; for n in 64 128 256 320; do for s in 1 2 3 4; do progs="$progs -p gemmq:split:n$n:s$s"; done; done
step membound 300 $o/membound.log build/gemmq bench --iterations 200 $progs \
  -o $o/membound.json --md $o/membound.md protocols/k1_wgrad_membound.json
tail -n 1 $o/membound.log; cat $o/runs.txt
pack
