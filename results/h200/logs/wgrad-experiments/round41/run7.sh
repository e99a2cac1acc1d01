#!/usr/bin/env bash
# run7.sh: forty-first round, call 7 (one H200), from the repository root, with build-exp/gq
# (main's gemmq, build/gemmq stripped) and build-exp/gq-order (the same gemmq linked with
# gemm_wgmma.cu under nocoop.patch and order.patch, -DGQX_ORDER=1; prepare.sh) carried:
# 1. the order build against the FP64 reference, ../round39/check-15.json (d_out 128, d_in 3840,
#    4096, 5120, T = 1 to 65537, both outs, 2 seeds x 3 reruns, the k1 budgets) with the split
#    programs of 128 and 120 CTAs there;
# 2. ../round30/probe-miss.json, 200 timed replays, main and the order build in turn, twice each;
# 3. main's memory-bound bench (protocols/k1_wgrad_membound.json, the 16 split programs).
# Everything in $OUT/r7.tgz.
set -u
[ -x build-exp/gq ] || tar xJf build-exp/r41.txz   # the two builds, carried packed
mkdir -p /tmp/r7; o=/tmp/r7; W=results/h200/logs/wgrad-experiments
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > $o/gpu.txt 2>&1
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" >> $o/runs.txt; }
pack() { tar czf $OUT/r7.tgz -C /tmp r7; }
ours="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4 -p gemmq:split:n256:s3 -p gemmq:split:n128:s4"
step check 150 $o/check.log build-exp/gq-order accuracy $W/round39/check-15.json $ours \
  --device 0 -o $o/check.json
pack
for i in 1 2; do
  for b in gq gq-order; do
    step $b-$i 90 $o/$b-$i.log build-exp/$b bench $W/round30/probe-miss.json $ours \
      --iterations 200 -o $o/$b-$i.json --md $o/$b-$i.md
  done
  pack
done
all=""; for n in 64 128 256 320; do for s in 1 2 3 4; do all="$all -p gemmq:split:n$n:s$s"; done; done
step membound 200 $o/membound.log build-exp/gq bench --iterations 200 $all \
  -o $o/membound.json --md $o/membound.md protocols/k1_wgrad_membound.json
pack
