#!/usr/bin/env bash
# run6.sh: thirty-fourth round, call 6 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round34/run6.sh
# Builds: round34/prepare5.sh (r34l: 1343065, x's copies first) and r34h: 1343065 with
# round34/xhalf-xfirst.patch (round 33's knob GQX_XH on the x-first producer: rank r copies rows
# [32r, 32r + 32) of every box of x, as nvjet does), built in a worktree under /tmp with
# `cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo` and packed as prepare5.sh packs.
# 1. the FP64 check with GQX_XH=1 (../round4/probe-check.json, ../round18/probe-65537.json);
# 2. ../round30/probe-miss.json, 200 timed replays: r34l (l), r34h without the knob (h0) and with
#    GQX_XH=1 (h1), in turn, three times.
# Every step is killed (SIGKILL) at its limit.
. results/h200/logs/wgrad-experiments/round29/start.sh r34h r34l
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
progs="-p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
step check-h1 60 $o/check-h1.log env GQX_XH=1 build/gemmq accuracy $W/round4/probe-check.json \
  -q $progs -p gemmq:split:n320:s3 -p gemmq:det -o $o/check-h1.json
step check65537-h1 60 $o/check65537-h1.log env GQX_XH=1 build/gemmq accuracy \
  $W/round18/probe-65537.json -q $progs -p gemmq:split:n320:s3 -p gemmq:det -o $o/check65537-h1.json
tail -qn 1 $o/check*.log
pack
b() { local n=$1 bin=$2; shift 2
  step $n-$i 60 $o/$n-$i.log env "$@" $bin bench $W/round30/probe-miss.json $progs \
    --iterations 200 -o $o/$n-$i.json --md $o/$n-$i.md; }
for i in 1 2 3; do
  b l build-exp/r34l/gemmq GQX=0
  b h0 build/gemmq GQX=0
  b h1 build/gemmq GQX_XH=1
  pack
done
cat $o/runs.txt
pack
