#!/usr/bin/env bash
# run4.sh: fortieth round, call 4 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round40/run4.sh
# Builds: build-exp/r39m.txz (main) and build-exp/oq.txz (oq.cu with OQ_GO: phase 2's copies
# wait for the helper's adds to be issued; and its trace build).
# 1. gemmq accuracy of oq, OQ_Q=24 OQ_GO=1 (check-oq.json);
# 2. the traced oq on probe-oq-65537.json, OQ_GO=1, OQ_Q 16 and 24;
# 3. gemmq bench of probe-oq.json with oq and n256:s4, 200 timed replays: (OQ_Q, OQ_GO) =
#    (24, 1), (16, 1), (32, 1), (24, 0), (24, 1).
. results/h200/logs/wgrad-experiments/round29/start.sh r39m oq
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
P=plugin:build-exp/oq/liboq.so:oq
export OQ_Q=24 OQ_GO=1
step check-24g 120 $o/check-24g.log build/gemmq accuracy -p $P -o $o/check-24g.json \
  $W/round40/check-oq.json
tail -n 1 $o/check-24g.log
for q in 16 24; do
  export OQ_Q=$q OQ_GO=1 OQ_TRACE_FILE=$o/trace-${q}g.txt
  step trace-${q}g 60 $o/trace-${q}g.log build/gemmq bench $W/round40/probe-oq-65537.json \
    -p plugin:build-exp/oqt/liboqt.so:oq --iterations 20 -o $o/trace-${q}g.json
done
unset OQ_TRACE_FILE
pack
for v in 24-1-1 16-1-1 32-1-1 24-0-1 24-1-2; do
  export OQ_Q=${v%%-*} OQ_GO=$(echo $v | cut -d- -f2)
  step bench-$v 90 $o/bench-$v.log build/gemmq bench $W/round40/probe-oq.json -p $P \
    -p gemmq:split:n256:s4 --iterations 200 -o $o/bench-$v.json --md $o/bench-$v.md
  tail -n 1 $o/bench-$v.log
  pack
done
cat $o/runs.txt
pack
