#!/usr/bin/env bash
# run3.sh: thirty-fifth round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round35/run3.sh
# build-exp/r35m.txz: main (686a897) from `round35/prepare.sh r35m ...`.
# The calibration cases (scripts/calibrate's qualify step; the judge runs without a GPU) and the
# A/A band of protocols/aa-k1.json. Every step is killed (SIGKILL) at its limit; everything is
# packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r35m
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
mkdir -p $o/cal
for c in protocols/calibration/*.json; do
  n=$(basename $c .json)
  step cal-$n 60 $o/cal/$n.log build/gemmq qualify $c --device 0 -o $o/cal/$n.json
done
tail -qn 1 $o/cal/*.log
pack
step aa-k1 200 $o/aa-k1.log build/gemmq time --device 0 -o $o/aa-k1.json protocols/aa-k1.json
tail -n 1 $o/aa-k1.log
cat $o/runs.txt
pack
