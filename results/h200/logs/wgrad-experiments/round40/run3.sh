#!/usr/bin/env bash
# run3.sh: fortieth round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round40/run3.sh
# Builds: build-exp/r39m.txz (main) and build-exp/oq.txz (oq.cu with the helper's adds by the
# TMA unit, and its trace build, -DOQ_TRACE).
# 1. gemmq accuracy of oq with OQ_Q=32 (check-oq.json);
# 2. the traced oq on probe-oq-65537.json, OQ_Q 32 and 16;
# 3. gemmq bench of probe-oq.json with oq and n256:s4, 200 timed replays: OQ_Q 32, 16, 24,
#    40, 0, then 32 again.
. results/h200/logs/wgrad-experiments/round29/start.sh r39m oq
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
P=plugin:build-exp/oq/liboq.so:oq
export OQ_Q=32
step check-32 120 $o/check-32.log build/gemmq accuracy -p $P -o $o/check-32.json \
  $W/round40/check-oq.json
tail -n 1 $o/check-32.log
for q in 32 16; do
  export OQ_Q=$q OQ_TRACE_FILE=$o/trace-$q.txt
  step trace-$q 60 $o/trace-$q.log build/gemmq bench $W/round40/probe-oq-65537.json \
    -p plugin:build-exp/oqt/liboqt.so:oq --iterations 20 -o $o/trace-$q.json
done
unset OQ_TRACE_FILE
pack
for v in 32-1 16-1 24-1 40-1 0-1 32-2; do
  export OQ_Q=${v%-*}
  step bench-$v 90 $o/bench-$v.log build/gemmq bench $W/round40/probe-oq.json -p $P \
    -p gemmq:split:n256:s4 --iterations 200 -o $o/bench-$v.json --md $o/bench-$v.md
  tail -n 1 $o/bench-$v.log
  pack
done
cat $o/runs.txt
pack
