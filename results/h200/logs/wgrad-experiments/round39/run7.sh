#!/usr/bin/env bash
# run7.sh: thirty-ninth round, call 7 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round39/run7.sh
# Builds: build-exp/r39m.txz (main) and build-exp/cl15.txz (cl15.cu: grid B's four CTAs of an M
# tile each add a quarter of its rows, loads before stores; no fifth pair by default).
# 1. gemmq accuracy of cl15 and n256:s4 at d_in 3840, 4096 and 5120 (check-15.json);
# 2. gemmq bench of probe-15.json with cl15, n256:s4 and n320:s4 beside cublas:default and
#    cuBLASLt's top 8, 200 timed replays, three times.
. results/h200/logs/wgrad-experiments/round29/start.sh r39m cl15
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
P=plugin:build-exp/cl15/libcl15.so:cl15
step check 300 $o/check.log build/gemmq accuracy -p $P -p gemmq:split:n256:s4 -o $o/check.json \
  $W/round39/check-15.json
tail -n 1 $o/check.log
pack
for i in 1 2 3; do
  step bench-$i 150 $o/bench-$i.log build/gemmq bench $W/round39/probe-15.json -p $P \
    -p gemmq:split:n256:s4 -p gemmq:split:n320:s4 --iterations 200 -o $o/bench-$i.json \
    --md $o/bench-$i.md
  tail -n 1 $o/bench-$i.log
  pack
done
cat $o/runs.txt
pack
