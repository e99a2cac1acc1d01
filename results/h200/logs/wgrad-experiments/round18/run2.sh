#!/usr/bin/env bash
# run2.sh: eighteenth round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round18/run2.sh   (writes $OUT/all.tgz after every step)
# build-exp/s18-2.txz holds build-exp/s18/gemmq-m (main, fed7b69's build) and build-exp/s18/gemmq-nt
# (round18/nt.patch built with GQX_NT 1: with the environment's GQX_NT=n the grid covers only the
# first n N tiles, wrong sums; a diagnostic of how the time moves with the CTAs at one row stride).
# The memory-bound bench (../round3/bench.sh's run) of main (m) and of gemmq-nt unset (n0) and with
# GQX_NT = 16, 15, 14 and 12 (n16 ... n12; gemmq:split:n256:s4 then has 128, 120, 112 and 96 CTAs
# at 4096x128 and 5120x128), three times each, interleaved.
c=2
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/s18-2.txz
for i in 1 2 3; do
  run m_$i build-exp/s18/gemmq-m; run n0_$i build-exp/s18/gemmq-nt
  for n in 16 15 14 12; do run n${n}_$i build-exp/s18/gemmq-nt GQX_NT=$n; done
done
snap "ab done"
python3 results/h200/logs/wgrad-experiments/round3/summarize.py tsv /tmp/r/*_[123].json > /tmp/o/variants-$c.tsv
snap "tsv done"
