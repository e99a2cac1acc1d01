#!/usr/bin/env bash
# run9.sh: thirty-ninth round, call 9 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round39/run9.sh
# Builds: build-exp/r39m.txz (main) and build-exp/cl15.txz (cl15.cu: CL15_HEAD=H, grid B's
# quarters leaving their first H K-blocks to two more pairs).
# 1. gemmq accuracy of cl15 with CL15_HEAD=8 and 16 at d_in 3840, 4096 and 5120 (check-15.json);
# 2. gemmq bench of probe-15.json with cl15, n256:s4 and n320:s4 beside cublas:default and
#    cuBLASLt's top 8, 200 timed replays: CL15_HEAD 8 twice, then 16, 4 and 0 once each.
. results/h200/logs/wgrad-experiments/round29/start.sh r39m cl15
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
P=plugin:build-exp/cl15/libcl15.so:cl15
for h in 8 16; do
  export CL15_HEAD=$h
  step check-$h 300 $o/check-$h.log build/gemmq accuracy -p $P -o $o/check-$h.json \
    $W/round39/check-15.json
  tail -n 1 $o/check-$h.log
done
pack
for v in 8-1 16-1 4-1 0-1 8-2; do
  export CL15_HEAD=${v%-*}
  step bench-$v 150 $o/bench-$v.log build/gemmq bench $W/round39/probe-15.json -p $P \
    -p gemmq:split:n256:s4 -p gemmq:split:n320:s4 --iterations 200 -o $o/bench-$v.json \
    --md $o/bench-$v.md
  tail -n 1 $o/bench-$v.log
  pack
done
cat $o/runs.txt
pack
