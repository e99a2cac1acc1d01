#!/usr/bin/env bash
# run6.sh: thirty-ninth round, call 6 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round39/run6.sh
# Builds: build-exp/r39m.txz (main) and build-exp/cl15.txz (cl15.cu: grid A of 15 clusters on
# tiles 0-14; grid B on the 16th tile as A's programmatic dependent, its M tiles in clusters of
# two sharing x, and a fifth pair taking the last CL15_TAIL % of each quarter).
# 1. gemmq accuracy of cl15 (CL15_TAIL 5, the default, and 20) and n256:s4 at d_in 3840, 4096
#    and 5120 (check-15.json);
# 2. gemmq bench of probe-15.json with cl15, n256:s4 and n320:s4 beside cublas:default and
#    cuBLASLt's top 8, 200 timed replays: CL15_TAIL 5 three times, then 3 and 10 once each.
. results/h200/logs/wgrad-experiments/round29/start.sh r39m cl15
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
P=plugin:build-exp/cl15/libcl15.so:cl15
step check 300 $o/check.log build/gemmq accuracy -p $P -p gemmq:split:n256:s4 -o $o/check.json \
  $W/round39/check-15.json
tail -n 1 $o/check.log
export CL15_TAIL=20
step check20 300 $o/check20.log build/gemmq accuracy -p $P -o $o/check20.json \
  $W/round39/check-15.json
tail -n 1 $o/check20.log
pack
for v in 5-1 5-2 5-3 3-1 10-1; do
  export CL15_TAIL=${v%-*}
  step bench-$v 150 $o/bench-$v.log build/gemmq bench $W/round39/probe-15.json -p $P \
    -p gemmq:split:n256:s4 -p gemmq:split:n320:s4 --iterations 200 -o $o/bench-$v.json \
    --md $o/bench-$v.md
  tail -n 1 $o/bench-$v.log
  pack
done
cat $o/runs.txt
pack
