#!/usr/bin/env bash
# run3.sh: thirty-third round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round33/run3.sh
# build-exp/r33m.txz as in run2.sh (main, 6e7d865).
# 1. the main job's qualification, the embedded smoke protocol (smoke.json, smoke.log);
# 2. the calibration cases (scripts/calibrate's qualify step; its judge runs on the development
#    machine), each killed (SIGKILL) at its limit.
# Everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r33m
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
step smoke 120 $o/smoke.log build/gemmq qualify -o $o/smoke.json
tail -n 1 $o/smoke.log
pack
mkdir -p $o/cal
for c in protocols/calibration/*.json; do
  n=$(basename $c .json)
  step cal-$n 60 $o/cal/$n.log build/gemmq qualify $c --device 0 -o $o/cal/$n.json
done
tail -qn 1 $o/cal/*.log
cat $o/runs.txt
pack
