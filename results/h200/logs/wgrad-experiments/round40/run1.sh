#!/usr/bin/env bash
# run1.sh: fortieth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round40/run1.sh
# Builds: build-exp/r39m.txz (main) and build-exp/oq.txz (oq.cu, its header's nvcc line).
# 1. gemmq accuracy of oq with OQ_Q=32 and 0 at d_in 4096, d_out 128 (check-oq.json);
# 2. gemmq bench of probe-oq.json with oq and n256:s4 beside cublas:default and cuBLASLt's
#    top 8, 200 timed replays: OQ_Q 32, 16, 48, 64, 0, then 32 again.
. results/h200/logs/wgrad-experiments/round29/start.sh r39m oq
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
P=plugin:build-exp/oq/liboq.so:oq
for q in 32 0; do
  export OQ_Q=$q
  step check-$q 120 $o/check-$q.log build/gemmq accuracy -p $P -o $o/check-$q.json \
    $W/round40/check-oq.json
  tail -n 2 $o/check-$q.log
done
pack
for v in 32-1 16-1 48-1 64-1 0-1 32-2; do
  export OQ_Q=${v%-*}
  step bench-$v 90 $o/bench-$v.log build/gemmq bench $W/round40/probe-oq.json -p $P \
    -p gemmq:split:n256:s4 --iterations 200 -o $o/bench-$v.json --md $o/bench-$v.md
  tail -n 1 $o/bench-$v.log
  pack
done
cat $o/runs.txt
pack
