#!/usr/bin/env bash
# run1.sh: forty-third round, call 1 (one H200), from the repository root, with build-exp/r43.txz
# carried (prepare.sh): gq (main's gemmq), gq-o and kt-o (gemmq and gpu_test_gpu_kernels under
# order.patch: GQX_ORDER picks the clusters' launch order; 0 main's, 1 cuBLASLt's table, 2 the
# splits of an N tile side by side, 3 the clusters r mod 8 in turn, 4 reversed).
# 1. every order against the FP64 reference, ../round39/check-15.json (d_out 128, d_in 3840,
#    4096, 5120, T = 1 to 65537, both outs, 2 seeds x 3 reruns, the k1 budgets), n256:s4 n320:s4
#    n256:s3; kt-o with GQX_ORDER=2 (which every grid of at most 128 clusters takes);
# 2. ../round30/probe-miss.json, 200 timed replays, main then gq-o with each order, 4 times;
# 3. the memory-bound bench (protocols/k1_wgrad_membound.json, the 16 split programs), order 1.
# Everything in $OUT/r1.tgz.
set -u
mkdir -p build-exp/r43 && tar xJf build-exp/r43.txz -C build-exp/r43
mkdir -p /tmp/r1; o=/tmp/r1; W=results/h200/logs/wgrad-experiments; B=build-exp/r43
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > $o/gpu.txt 2>&1
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" >> $o/runs.txt; }
pack() { tar czf $OUT/r1.tgz -C /tmp r1; }
main="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
for v in 0 1 2 3 4; do
  GQX_ORDER=$v step check-$v 120 $o/check-$v.log $B/gq-o accuracy $W/round39/check-15.json $main \
    -p gemmq:split:n256:s3 --device 0 -o $o/check-$v.json
done
GQX_ORDER=2 step kt-2 120 $o/kt-2.log $B/kt-o
pack
for i in 1 2 3 4; do
  step gq-$i 90 $o/gq-$i.log $B/gq bench $W/round30/probe-miss.json $main --iterations 200 -o $o/gq-$i.json
  for v in 0 1 2 3 4; do
    GQX_ORDER=$v step o$v-$i 90 $o/o$v-$i.log $B/gq-o bench $W/round30/probe-miss.json $main \
      --iterations 200 -o $o/o$v-$i.json
  done
  pack
done
all=""; for n in 64 128 256 320; do for s in 1 2 3 4; do all="$all -p gemmq:split:n$n:s$s"; done; done
GQX_ORDER=1 step membound-o1 200 $o/membound-o1.log $B/gq-o bench --iterations 200 $all \
  -o $o/membound-o1.json --md $o/membound-o1.md protocols/k1_wgrad_membound.json
pack
