#!/usr/bin/env bash
# run2.sh: forty-second round, call 2 (one H200), from the repository root, with build-exp/r42b.txz
# carried (prepare.sh): gq (main's gemmq) and gq-sc (gemmq linked with gemm_mma.cu and kernels.c
# under selfclean.patch: with GQX_SC set, BF16 out of the split programs on the wgmma kernel adds
# into a workspace zeroed once at prepare, and the rounding after the GEMM zeroes it again, so
# the GEMM zeroes nothing and is not launched cooperatively).
# 1. GQX_SC=1 against the FP64 reference, ../round39/check-15.json (2 seeds x 3 reruns: the
#    reruns run on a workspace the rounding left zeroed), the four split programs;
# 2. ../round30/probe-miss.json, 200 timed replays: main, gq-sc without the knob (x0), gq-sc with
#    it (sc), in turn, 3 times;
# 3. the memory-bound bench (protocols/k1_wgrad_membound.json, the 16 split programs) with GQX_SC=1.
# Everything in $OUT/r2.tgz.
set -u
mkdir -p build-exp/r42 && tar xJf build-exp/r42b.txz -C build-exp/r42
mkdir -p /tmp/r2; o=/tmp/r2; W=results/h200/logs/wgrad-experiments
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > $o/gpu.txt 2>&1
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" >> $o/runs.txt; }
pack() { tar czf $OUT/r2.tgz -C /tmp r2; }
ours="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4 -p gemmq:split:n256:s3 -p gemmq:split:n128:s4"
GQX_SC=1 step check 120 $o/check.log build-exp/r42/gq-sc accuracy $W/round39/check-15.json $ours \
  --device 0 -o $o/check.json
pack
for i in 1 2 3; do
  step m-$i 90 $o/m-$i.log build-exp/r42/gq bench $W/round30/probe-miss.json $ours \
    --iterations 200 -o $o/m-$i.json
  step x0-$i 90 $o/x0-$i.log build-exp/r42/gq-sc bench $W/round30/probe-miss.json $ours \
    --iterations 200 -o $o/x0-$i.json
  GQX_SC=1 step sc-$i 90 $o/sc-$i.log build-exp/r42/gq-sc bench $W/round30/probe-miss.json $ours \
    --iterations 200 -o $o/sc-$i.json
  pack
done
all=""; for n in 64 128 256 320; do for s in 1 2 3 4; do all="$all -p gemmq:split:n$n:s$s"; done; done
GQX_SC=1 step membound-sc 200 $o/membound-sc.log build-exp/r42/gq-sc bench --iterations 200 $all \
  -o $o/membound-sc.json --md $o/membound-sc.md protocols/k1_wgrad_membound.json
pack
