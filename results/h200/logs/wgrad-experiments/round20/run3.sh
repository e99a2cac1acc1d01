#!/usr/bin/env bash
# run3.sh: twentieth round, call 3 (an H200 ×2): k1_wgrad qualified on f0de1c5 with the four
# candidates that the protocol's rule takes from bd8e247's programs.json (5120x512 and 5120x1024,
# both out dtypes -> gemmq:split:n320:s1), both shards at once, from the repository root
# (build-exp/q20.txz holds build-exp/q20/gemmq of f0de1c5):
#   bash results/h200/logs/wgrad-experiments/round20/run3.sh   (writes $OUT/k1-s{0,1}.json, .log)
# After unpacking, the eleventh round's lines (../round11/run2.sh).
tar xJf build-exp/q20.txz
mkdir -p build && cp build-exp/q20/gemmq build/gemmq
bash results/h200/logs/wgrad-experiments/round11/run2.sh
