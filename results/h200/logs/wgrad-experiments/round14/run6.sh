#!/usr/bin/env bash
# run6.sh: fourteenth round, call 6 (an H200 ×2): k1_wgrad qualified on the lean consumers with
# the three candidates that the protocol's rule takes from call 5's programs.json, both shards at
# once, from the repository root (build-exp/bins.tgz holds build-exp/gemmq of f1c2b84):
#   bash results/h200/logs/wgrad-experiments/round14/run6.sh   (writes $OUT/k1-s{0,1}.json, .log)
# After unpacking, the eleventh round's lines (../round11/run2.sh).
tar xzf build-exp/bins.tgz
mkdir -p build && cp build-exp/gemmq build/gemmq
bash results/h200/logs/wgrad-experiments/round11/run2.sh
