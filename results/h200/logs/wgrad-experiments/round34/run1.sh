#!/usr/bin/env bash
# run1.sh: thirty-fourth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round34/run1.sh
# Builds: round34/prepare.sh (r34m: main; r34n: main with round34/nomma.patch, knob GQX_NOMMA;
# capture.so: round34/capture.c).
# 1. gemmq bench of round34/probe-cap.json (4 points) with capture.so preloaded: every
#    cuTensorMapEncodeTiled, function attribute and launch (config, attributes, parameter bytes)
#    of cuBLASLt's top 8 and of our n256:s4 and n320:s4, and reference maps of known arguments;
# 2. ../round30/probe-miss.json, the split programs beside cuBLASLt's top 8, 200 timed replays:
#    main (m), the patched build without the knob (n0) and with GQX_NOMMA=1 (nm: the consumers
#    wait for each stage and release it, multiplying nothing; wrong sums), in turn, three times.
#    The pieces give each GEMM kernel's time.
# Every step is killed (SIGKILL) at its limit.
. results/h200/logs/wgrad-experiments/round29/start.sh r34n r34m
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
progs="-p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
mkdir -p $o/cap
step capture 120 $o/capture.log env GQCAP_OUT=$o/cap/cap GQCAP_PER=12 \
  LD_PRELOAD=$PWD/build-exp/capture.so build-exp/r34m/gemmq bench $W/round34/probe-cap.json \
  -p gemmq:split:n256:s4 -p gemmq:split:n320:s4 --iterations 5 -o $o/capture.json
ls -l $o/cap; head -c 600 $o/capture.log
pack
b() { local n=$1 bin=$2; shift 2
  step $n-$i 120 $o/$n-$i.log env "$@" $bin bench $W/round30/probe-miss.json $progs \
    --iterations 200 -o $o/$n-$i.json --md $o/$n-$i.md; }
for i in 1 2 3; do
  b m build-exp/r34m/gemmq GQX=0
  b n0 build/gemmq GQX=0
  b nm build/gemmq GQX_NOMMA=1
  pack
done
cat $o/runs.txt
pack
