#!/usr/bin/env bash
# run4.sh: thirty-second round, call 4 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round32/run4.sh
# build-exp/r32o.txz: gemmq and gpu_test_gpu_kernels of 6b4cdfb with round32/order.patch (knob
# GQX_ORDER: 1 the splits fastest in the dispatch order, 2 the odd splits' N tiles reversed,
# + 4 the split's TMA adds waited for only until the ring is read); build-exp/r32p.txz: main's
# gemmq (d000c3f, the same kernels), stripped.
# 1. the FP64 check (../round4/probe-check.json, ../round18/probe-65537.json) of the split
#    programs with GQX_ORDER=1, 2, 4 and 5, and gpu_test_gpu_kernels with 1 and 5;
# 2. ../round30/probe-miss.json, the four split programs beside cuBLASLt's top 8, 200 timed
#    replays: main (m), the patch without the knob (o0) and with 1, 2, 4 and 5, in turn, twice.
. results/h200/logs/wgrad-experiments/round29/start.sh r32o r32p
progs="-p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
for z in 1 2 4 5; do
  step check-o$z 90 $o/check-o$z.log env GQX_ORDER=$z build/gemmq accuracy \
    $W/round4/probe-check.json -q $progs -p gemmq:split:n64:s4 -p gemmq:split:n128:s2 \
    -o $o/check-o$z.json
  step check65537-o$z 120 $o/check65537-o$z.log env GQX_ORDER=$z build/gemmq accuracy \
    $W/round18/probe-65537.json -q $progs -o $o/check65537-o$z.json
done
for z in 1 5; do
  (cd build && step kernels-o$z 120 $o/gpu_test_gpu_kernels-o$z.log env GQX_ORDER=$z \
    tests/gpu_test_gpu_kernels)
done
tail -qn 1 $o/check*.log; grep -h "checks," $o/gpu_test_gpu_kernels-o*.log
pack
b() { local n=$1 bin=$2; shift 2
  step $n-$i 90 $o/$n-$i.log env "$@" $bin bench $W/round30/probe-miss.json $progs \
    --iterations 200 -o $o/$n-$i.json --md $o/$n-$i.md; }
for i in 1 2; do
  b m build-exp/r32p/gemmq GQX=0
  b o0 build/gemmq GQX=0
  b o1 build/gemmq GQX_ORDER=1
  b o2 build/gemmq GQX_ORDER=2
  b o4 build/gemmq GQX_ORDER=4
  b o5 build/gemmq GQX_ORDER=5
  pack
done
cat $o/runs.txt
pack
