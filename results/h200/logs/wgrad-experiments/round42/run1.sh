#!/usr/bin/env bash
# run1.sh: forty-second round, call 1 (one H200), from the repository root, with build-exp/r42.txz
# carried (prepare.sh): gq (main's gemmq) and gq-a, gq-b, gq-c (gemmq linked with gemm_wgmma.cu
# and kernels.c under n384w.patch: the 64x384 tile as three consumer warpgroups of 128 columns;
# a: 3 stages, pipelined consumers; b: 4 stages, pipelined; c: 4 stages, not pipelined).
# 1. each variant against the FP64 reference, ../round39/check-15.json (d_out 128, d_in 3840,
#    4096, 5120, T = 1 to 65537, both outs, 2 seeds x 3 reruns, the k1 budgets), n384:s4-s6;
# 2. ../round30/probe-miss.json, 200 timed replays, main and the three variants in turn, 3 times;
# 3. main's memory-bound bench (protocols/k1_wgrad_membound.json, the 16 split programs).
# Everything in $OUT/r1.tgz.
set -u
mkdir -p build-exp/r42 && tar xJf build-exp/r42.txz -C build-exp/r42
mkdir -p /tmp/r1; o=/tmp/r1; W=results/h200/logs/wgrad-experiments
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > $o/gpu.txt 2>&1
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" >> $o/runs.txt; }
pack() { tar czf $OUT/r1.tgz -C /tmp r1; }
n384="-p gemmq:split:n384:s4 -p gemmq:split:n384:s5 -p gemmq:split:n384:s6"
for v in a b c; do
  step check-$v 120 $o/check-$v.log build-exp/r42/gq-$v accuracy $W/round39/check-15.json $n384 \
    --device 0 -o $o/check-$v.json
done
pack
main="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
for i in 1 2 3; do
  step gq-$i 90 $o/gq-$i.log build-exp/r42/gq bench $W/round30/probe-miss.json $main \
    --iterations 200 -o $o/gq-$i.json
  for v in a b c; do
    step $v-$i 90 $o/$v-$i.log build-exp/r42/gq-$v bench $W/round30/probe-miss.json $main \
      -p gemmq:split:n384:s6 -p gemmq:split:n384:s5 --iterations 200 -o $o/$v-$i.json
  done
  pack
done
all=""; for n in 64 128 256 320; do for s in 1 2 3 4; do all="$all -p gemmq:split:n$n:s$s"; done; done
step membound 200 $o/membound.log build-exp/r42/gq bench --iterations 200 $all \
  -o $o/membound.json --md $o/membound.md protocols/k1_wgrad_membound.json
pack
