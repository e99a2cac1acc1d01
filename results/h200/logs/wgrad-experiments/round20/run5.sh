#!/usr/bin/env bash
# run5.sh: twentieth round, call 5 (an H200 ×2): k1_wgrad qualified on 4b2a3eb with the two
# candidates that the protocol's rule takes from e876441's programs.json (5120x128, both out dtypes -> gemmq:split:n320:s4),
# both shards at once, from the repository root
# (build-exp/q20b.txz holds build-exp/q20/gemmq of 4b2a3eb):
#   bash results/h200/logs/wgrad-experiments/round20/run5.sh   (writes $OUT/k1-s{0,1}.json, .log)
# After unpacking, the eleventh round's lines (../round11/run2.sh).
tar xJf build-exp/q20b.txz
mkdir -p build && cp build-exp/q20/gemmq build/gemmq
bash results/h200/logs/wgrad-experiments/round11/run2.sh
