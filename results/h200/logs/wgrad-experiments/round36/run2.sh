#!/usr/bin/env bash
# run2.sh: thirty-sixth round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round36/run2.sh
# Builds: those of run1.sh. Call 1 found r36k's 64×320 instances failing on the device
# (cudaErrorLaunchFailure), so this call checks and times the 64×256 programs alone:
# 1. the FP64 checks of r36k with n256:s3, n256:s4 and gemmq:det (../round4/probe-check.json,
#    ../round18/probe-65537.json);
# 2. ../round30/probe-miss.json with n256:s3 and n256:s4, 200 timed replays: main (m), r36k (k),
#    r36f (f) in turn, four times.
. results/h200/logs/wgrad-experiments/round29/start.sh r36k r36m r36f
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
progs="-p gemmq:split:n256:s3 -p gemmq:split:n256:s4"
step check-k 60 $o/check-k.log build/gemmq accuracy $W/round4/probe-check.json \
  -q $progs -p gemmq:det -o $o/check-k.json
step check65537-k 60 $o/check65537-k.log build/gemmq accuracy $W/round18/probe-65537.json \
  -q $progs -p gemmq:det -o $o/check65537-k.json
tail -qn 1 $o/check*.log
pack
b() { local n=$1 bin=$2
  step $n-$i 60 $o/$n-$i.log $bin bench $W/round30/probe-miss.json $progs \
    --iterations 200 -o $o/$n-$i.json --md $o/$n-$i.md; }
for i in 1 2 3 4; do
  b m build-exp/r36m/gemmq
  b k build/gemmq
  b f build-exp/r36f/gemmq
  pack
done
cat $o/runs.txt
pack
