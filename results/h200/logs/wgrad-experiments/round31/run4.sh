#!/usr/bin/env bash
# run4.sh: thirty-first round, call 4 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round31/run4.sh
# build-exp/r31d.txz: gemmq and the GPU test programs of 3f7b57c (the calibration's timed cases
# on gemmq:split:n256:s3), built with `cmake --build build`, stripped.
# 1. the seven calibration cases (scripts/calibrate's qualify step; the judge runs here);
# 2. the k1 accuracy of the 18 programs and cublas:default (protocols/k1_wgrad_odd.json,
#    10 seeds × 20 reruns: accuracy-k1-programs.json).
# Everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r31d
mkdir -p $o/cal
for c in protocols/calibration/*.json; do
  n=$(basename $c .json)
  step cal-$n 60 $o/cal/$n.log build/gemmq qualify $c --device 0 -o $o/cal/$n.json
done
tail -qn 1 $o/cal/*.log
pack
progs=""; for p in gemmq:det gemmq:streamk; do progs="$progs -p $p"; done
for n in 64 128 256 320; do for s in 1 2 3 4; do progs="$progs -p gemmq:split:n$n:s$s"; done; done
step accuracy 330 $o/accuracy-k1-programs.log build/gemmq accuracy --device 0 $progs \
  -p cublas:default -o $o/accuracy-k1-programs.json protocols/k1_wgrad_odd.json
tail -n 2 $o/accuracy-k1-programs.log
cat $o/runs.txt
pack
