#!/usr/bin/env bash
# run2.sh: thirty-fourth round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round34/run2.sh
# Builds: round34/prepare.sh (r34m: main; r34k: main with round34/knobs.patch; capture.so).
# 1. the capture of call 1 again (capture.c no longer deadlocks on its own driver calls);
# 2. the FP64 check of the split programs and gemmq:det with each copy knob
#    (../round4/probe-check.json, ../round18/probe-65537.json);
# 3. ../round30/probe-miss.json, 200 timed replays, main (m), r34k without knobs (k0) and with
#    GQX_GH=1, 2 (g with no hint, evict-first), GQX_XF=1, 3 (x first; and the expectation after
#    the copies), GQX_IL=1, 8, 32 (interleaved splits), GQX_NOMMA=1 with GQX_IL=8; twice.
# Every step is killed (SIGKILL) at its limit.
. results/h200/logs/wgrad-experiments/round29/start.sh r34k r34m
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
progs="-p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
mkdir -p $o/cap
step capture 90 $o/capture.log env GQCAP_OUT=$o/cap/cap GQCAP_PER=12 \
  LD_PRELOAD=$PWD/build-exp/capture.so build-exp/r34m/gemmq bench $W/round34/probe-cap.json \
  -p gemmq:split:n256:s4 -p gemmq:split:n320:s4 --iterations 5 -o $o/capture.json
ls -l $o/cap; tail -n 3 $o/capture.log
pack
for k in GQX_IL=8 GQX_IL=1 GQX_GH=1 GQX_GH=2 GQX_XF=3; do
  step check-$k 60 $o/check-$k.log env $k build/gemmq accuracy $W/round4/probe-check.json \
    -q $progs -p gemmq:split:n320:s3 -p gemmq:det -o $o/check-$k.json
  step check65537-$k 60 $o/check65537-$k.log env $k build/gemmq accuracy \
    $W/round18/probe-65537.json -q $progs -p gemmq:split:n320:s3 -p gemmq:det -o $o/check65537-$k.json
done
tail -qn 1 $o/check*.log
pack
b() { local n=$1 bin=$2; shift 2
  step $n-$i 60 $o/$n-$i.log env "$@" $bin bench $W/round30/probe-miss.json $progs \
    --iterations 200 -o $o/$n-$i.json --md $o/$n-$i.md; }
for i in 1 2; do
  b m build-exp/r34m/gemmq GQX=0
  b k0 build/gemmq GQX=0
  b gh1 build/gemmq GQX_GH=1
  b gh2 build/gemmq GQX_GH=2
  b xf1 build/gemmq GQX_XF=1
  b xf3 build/gemmq GQX_XF=3
  b il1 build/gemmq GQX_IL=1
  b il8 build/gemmq GQX_IL=8
  b il32 build/gemmq GQX_IL=32
  b nmil8 build/gemmq GQX_NOMMA=1 GQX_IL=8
  pack
done
cat $o/runs.txt
pack
