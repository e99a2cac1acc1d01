#!/usr/bin/env bash
# run2.sh: fortieth round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round40/run2.sh
# Builds: build-exp/r39m.txz (main) and build-exp/oqt.txz (oq.cu built with -DOQ_TRACE).
# gemmq bench of probe-oq-65537.json with the traced oq alone, 20 timed replays, OQ_Q 32, 0 and
# 64, each twice; every CTA's steps of the last replay of each point in trace-Q-R.txt.
. results/h200/logs/wgrad-experiments/round29/start.sh r39m oqt
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
P=plugin:build-exp/oqt/liboqt.so:oq
for v in 32-1 0-1 64-1 32-2 0-2 64-2; do
  export OQ_Q=${v%-*} OQ_TRACE_FILE=$o/trace-$v.txt
  step trace-$v 60 $o/trace-$v.log build/gemmq bench $W/round40/probe-oq-65537.json -p $P \
    --iterations 20 -o $o/trace-$v.json
  tail -n 1 $o/trace-$v.log
done
cat $o/runs.txt
pack
