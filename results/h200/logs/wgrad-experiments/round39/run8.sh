#!/usr/bin/env bash
# run8.sh: thirty-ninth round, call 8 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round39/run8.sh
# Builds: build-exp/r39m.txz (main) and build-exp/cl15.txz (cl15.cu: grid B's K in CL15_B pieces).
# 1. gemmq accuracy of cl15 with CL15_B=6 and 5 at d_in 3840, 4096 and 5120 (check-15.json);
# 2. gemmq bench of probe-15.json with cl15, n256:s4 and n320:s4 beside cublas:default and
#    cuBLASLt's top 8, 200 timed replays: CL15_B 6 twice, 5 and 4 once each.
. results/h200/logs/wgrad-experiments/round29/start.sh r39m cl15
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
P=plugin:build-exp/cl15/libcl15.so:cl15
for b in 6 5; do
  export CL15_B=$b
  step check-$b 300 $o/check-$b.log build/gemmq accuracy -p $P -o $o/check-$b.json \
    $W/round39/check-15.json
  tail -n 1 $o/check-$b.log
done
pack
for v in 6-1 5-1 4-1 6-2; do
  export CL15_B=${v%-*}
  step bench-$v 150 $o/bench-$v.log build/gemmq bench $W/round39/probe-15.json -p $P \
    -p gemmq:split:n256:s4 -p gemmq:split:n320:s4 --iterations 200 -o $o/bench-$v.json \
    --md $o/bench-$v.md
  tail -n 1 $o/bench-$v.log
  pack
done
cat $o/runs.txt
pack
