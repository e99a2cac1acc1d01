#!/usr/bin/env bash
# run4.sh: forty-second round, calls 4 and 5 (one H200 each), from the repository root, with
# build-exp/r42d.txz carried (prepare.sh): gq (main's gemmq) and gq-d4 (depth.patch built with
# the 64x256 ring in 4 stages, the 64x320 ring as main's).
# 1. ../round30/probe-miss.json, 200 timed replays: main and d4 in turn, 3 times;
# 2. the memory-bound bench (protocols/k1_wgrad_membound.json, the 16 split programs), d4 then main.
# Everything in $OUT/r4.tgz.
set -u
mkdir -p build-exp/r42 && tar xJf build-exp/r42d.txz -C build-exp/r42
mkdir -p /tmp/r4; o=/tmp/r4; W=results/h200/logs/wgrad-experiments
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > $o/gpu.txt 2>&1
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" >> $o/runs.txt; }
pack() { tar czf $OUT/r4.tgz -C /tmp r4; }
ours="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4 -p gemmq:split:n256:s3 -p gemmq:split:n128:s4"
for i in 1 2 3; do
  for v in m d4; do
    b=build-exp/r42/gq-$v; [ $v = m ] && b=build-exp/r42/gq
    step $v-$i 90 $o/$v-$i.log $b bench $W/round30/probe-miss.json $ours \
      --iterations 200 -o $o/$v-$i.json
  done
  pack
done
all=""; for n in 64 128 256 320; do for s in 1 2 3 4; do all="$all -p gemmq:split:n$n:s$s"; done; done
for v in d4 m; do
  b=build-exp/r42/gq-$v; [ $v = m ] && b=build-exp/r42/gq
  step membound-$v 200 $o/membound-$v.log $b bench --iterations 200 $all \
    -o $o/membound-$v.json protocols/k1_wgrad_membound.json
  pack
done
