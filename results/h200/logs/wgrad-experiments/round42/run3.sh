#!/usr/bin/env bash
# run3.sh: forty-second round, call 3 (one H200), from the repository root, with build-exp/r42c.txz
# carried (prepare.sh): gq (main's gemmq), gq-d4 and gq-d3 (gemmq linked with gemm_wgmma.cu under
# depth.patch: the 64x256 ring in 4 stages (d4) or 3 (d3) instead of 5, the 64x320 ring in 4
# (d4, as main) or 3 (d3)).
# 1. d4 and d3 against the FP64 reference, ../round39/check-15.json, n256:s4 and n320:s4;
# 2. ../round30/probe-miss.json, 200 timed replays: main, d4, d3 in turn, 3 times.
# Everything in $OUT/r3.tgz.
set -u
mkdir -p build-exp/r42 && tar xJf build-exp/r42c.txz -C build-exp/r42
mkdir -p /tmp/r3; o=/tmp/r3; W=results/h200/logs/wgrad-experiments
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > $o/gpu.txt 2>&1
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" >> $o/runs.txt; }
pack() { tar czf $OUT/r3.tgz -C /tmp r3; }
ours="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4 -p gemmq:split:n256:s3 -p gemmq:split:n128:s4"
for v in d4 d3; do
  step check-$v 120 $o/check-$v.log build-exp/r42/gq-$v accuracy $W/round39/check-15.json \
    -p gemmq:split:n256:s4 -p gemmq:split:n320:s4 --device 0 -o $o/check-$v.json
done
pack
for i in 1 2 3; do
  for v in m d4 d3; do
    b=build-exp/r42/gq-$v; [ $v = m ] && b=build-exp/r42/gq
    step $v-$i 90 $o/$v-$i.log $b bench $W/round30/probe-miss.json $ours \
      --iterations 200 -o $o/$v-$i.json
  done
  pack
done
