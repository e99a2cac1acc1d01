#!/usr/bin/env bash
# run2.sh: thirty-ninth round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round39/run2.sh
# Builds: build-exp/r39m.txz (main, `round35/prepare.sh r39m`) and build-exp/cl15.txz (cl15.cu
# with 15 clusters cutting d_in into pieces of n/15 columns, widths 256, 320 or 384 loaded).
# 1. gemmq accuracy of cl15 and the split programs at d_in 3840, 4096 and 5120 (check-15.json);
# 2. gemmq bench of probe-15.json (d_in 4096 and 5120, T = 16173 to 65537, both outs) with cl15,
#    n256:s4, n320:s4, n128:s3 and n256:s3 beside cublas:default and cuBLASLt's top 8, 200
#    timed replays, three times; then once with CL15_BN=384 (6 boxes loaded at 4096 too).
. results/h200/logs/wgrad-experiments/round29/start.sh r39m cl15
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
P=plugin:build-exp/cl15/libcl15.so:cl15
S="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4 -p gemmq:split:n128:s3 -p gemmq:split:n256:s3"
step check 300 $o/check.log build/gemmq accuracy -p $P $S -o $o/check.json $W/round39/check-15.json
tail -n 3 $o/check.log
grep -c "cl15 pass" $o/check.log
pack
for i in 1 2 3; do
  step bench-$i 150 $o/bench-$i.log build/gemmq bench $W/round39/probe-15.json -p $P $S \
    --iterations 200 -o $o/bench-$i.json --md $o/bench-$i.md
  tail -n 2 $o/bench-$i.log
  pack
done
export CL15_BN=384
step bench-384 150 $o/bench-384.log build/gemmq bench $W/round39/probe-15.json -p $P \
  -p gemmq:split:n256:s4 -p gemmq:split:n320:s4 --iterations 200 -o $o/b384.json --md $o/b384.md
unset CL15_BN
cat $o/runs.txt
pack
