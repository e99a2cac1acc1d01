#!/usr/bin/env bash
# run1.sh: thirty-ninth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round39/run1.sh
# Builds: `round35/prepare.sh r39m` (main), and build-exp/cl15.txz, the plugin of cl15.cu (its
# nvcc line at its top) packed as `tar cJf build-exp/cl15.txz build-exp/cl15`.
# 1. gemmq accuracy of cl15 and gemmq:split:n256:s4 at d_in 3840 (check-3840.json: T = 1, 63,
#    1025, 16173, 65537, both outs, 2 seeds x 3 reruns, the k1 budgets);
# 2. gemmq bench of probe-3840.json (T = 16173 to 65537, both outs) with cl15, n256:s4 and
#    n256:s3 beside cublas:default and cuBLASLt's top 8, 200 timed replays, three times.
. results/h200/logs/wgrad-experiments/round29/start.sh r39m cl15
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
P=plugin:build-exp/cl15/libcl15.so:cl15
step check 240 $o/check.log build/gemmq accuracy -p $P -p gemmq:split:n256:s4 \
  -o $o/check.json $W/round39/check-3840.json
tail -n 30 $o/check.log
pack
for i in 1 2 3; do
  step bench-$i 120 $o/bench-$i.log build/gemmq bench $W/round39/probe-3840.json -p $P \
    -p gemmq:split:n256:s4 -p gemmq:split:n256:s3 --iterations 200 -o $o/bench-$i.json \
    --md $o/bench-$i.md
  tail -n 3 $o/bench-$i.log
  pack
done
cat $o/runs.txt
pack
