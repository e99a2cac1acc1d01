#!/usr/bin/env bash
# run4.sh: fifteenth round, call 4 (an H200 ×2): k1_wgrad qualified on 12a46b7 (pipelined
# consumers) with the two candidates that the protocol's rule takes from call 3's programs.json
# (5120x128, both out dtypes: n128:s3 -> n256:s3), both shards at once, from the repository root
# (build-exp/bins3.txz holds build-exp/gemmq of 12a46b7):
#   bash results/h200/logs/wgrad-experiments/round15/run4.sh   (writes $OUT/k1-s{0,1}.json, .log)
# After unpacking, the eleventh round's lines (../round11/run2.sh).
tar xJf build-exp/bins3.txz
mkdir -p build && cp build-exp/gemmq build/gemmq
bash results/h200/logs/wgrad-experiments/round11/run2.sh
