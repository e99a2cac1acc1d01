#!/usr/bin/env bash
# run3.sh: thirty-first round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round31/run3.sh
# build-exp/r31b.txz as in run2.sh (fd67fa0). The calibration's twin case came out inconclusive
# on calls 1 and 2 (its base, gemmq:split:n128:s1 at 5120x128, T = 131071, 2-4 % slower in one
# arm of the blocked processes). This qualifies the twin case with other bases and token counts
# (round31/probe-twin-*.json), twice each, and the slow cases with the base gemmq:split:n256:s3
# (probe-slow*-*.json), once each. Everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r31b
D=results/h200/logs/wgrad-experiments/round31
mkdir -p $o/probe
for r in 1 2; do
  for p in twin-n128s1-131071 twin-n256s3-131071 twin-det-131071 twin-n128s1-65537; do
    step $p-$r 40 $o/probe/$p-$r.log build/gemmq qualify $D/probe-$p.json -o $o/probe/$p-$r.json
  done
done
for p in slow3-n256s3-131071 slow10-n256s3-131071; do
  step $p 40 $o/probe/$p.log build/gemmq qualify $D/probe-$p.json -o $o/probe/$p.json
done
tail -qn 1 $o/probe/*.log
cat $o/runs.txt
pack
