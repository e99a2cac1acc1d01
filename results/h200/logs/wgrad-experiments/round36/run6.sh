#!/usr/bin/env bash
# run6.sh: thirty-sixth round, call 6 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round36/run6.sh
# Builds: `round35/prepare.sh r36m r36b:round36/mapbit.patch` (r36b: main with the knob
# GQX_MAPBIT, bit 1 of byte 8 set in the maps of x (1), g (2) and the sums (4)).
# 1. the FP64 checks of r36b with GQX_MAPBIT=7 (../round4/probe-check.json,
#    ../round18/probe-65537.json; the split programs and gemmq:det);
# 2. ../round30/probe-miss.json, 200 timed replays: main (m), r36b without the knob (b0), with
#    GQX_MAPBIT=1 (b1) and 7 (b7), in turn, three times.
. results/h200/logs/wgrad-experiments/round29/start.sh r36b r36m
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  local rc=$?; echo "$n rc=$rc $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; return $rc; }
progs="-p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
GQX_MAPBIT=7 step check-b7 60 $o/check-b7.log build/gemmq accuracy $W/round4/probe-check.json \
  -q $progs -p gemmq:det -o $o/check-b7.json
GQX_MAPBIT=7 step check65537-b7 60 $o/check65537-b7.log build/gemmq accuracy \
  $W/round18/probe-65537.json -q $progs -p gemmq:det -o $o/check65537-b7.json
tail -qn 1 $o/check*.log
pack
b() { local n=$1 bin=$2
  step $n-$i 60 $o/$n-$i.log $bin bench $W/round30/probe-miss.json $progs \
    --iterations 200 -o $o/$n-$i.json --md $o/$n-$i.md; }
for i in 1 2 3; do
  b m build-exp/r36m/gemmq
  GQX_MAPBIT=0 b b0 build/gemmq
  GQX_MAPBIT=1 b b1 build/gemmq
  GQX_MAPBIT=7 b b7 build/gemmq
  pack
done
cat $o/runs.txt
pack
