#!/usr/bin/env bash
# run3.sh: the order of tiles and splits over the grid (wgrad-experiments.md, fourth round), from
# the repository root on one H200: bash results/h200/logs/wgrad-experiments/round4/run3.sh
# (writes $OUT/r.tgz; then ../round3/summarize.py tsv /tmp/r/<run>.json... > variants-3.tsv).
# build/gemmq from main; build-exp/gemmq-ord from main with order.patch (cluster-steps.patch
# plus GQX_ORDER=o: the block's linear index read as 0 m, n, z (as launched); 1 z, m, n; 2 m, z, n;
# 3 z, n, m; 4 n, m, z, fastest first).
RUN_TIMEOUT=60
R4=results/h200/logs/wgrad-experiments/round4
. results/h200/logs/wgrad-experiments/round3/bench.sh
. $R4/check.sh
for o in 1 2 3 4; do check o$o build-exp/gemmq-ord GQX_ORDER=$o; done
for rep in 1 2; do
run a_$rep build/gemmq
run o0_$rep build-exp/gemmq-ord
for o in 1 2 3 4; do run o${o}_$rep build-exp/gemmq-ord GQX_ORDER=$o; done
done
tar czf $OUT/r.tgz -C /tmp r
