#!/usr/bin/env bash
# run1.sh: thirtieth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round30/run1.sh
# build-exp/r30m.txz: gemmq of main (0d6b8c9); build-exp/r30x.txz: gemmq and gpu_test_gpu_kernels
# of 0d6b8c9 with round30/tc.patch (knobs GQX_TK, GQX_TC, GQX_TCW, GQX_NOZERO), stripped.
# 1. the FP64 check (../round4/probe-check.json, ../round18/probe-65537.json) of n256:s4, n320:s4
#    and n128:s4 with GQX_TC=16 GQX_TK=1, and gpu_test_gpu_kernels with it;
# 2. probe-miss.json, the split programs beside cuBLASLt's top 8, 200 timed replays, each
#    variant in turn, three times.
. results/h200/logs/wgrad-experiments/round29/start.sh r30x r30m
progs="-p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
step check-tc 90 $o/check-tc.log env GQX_TC=16 GQX_TK=1 build/gemmq accuracy $W/round4/probe-check.json -q \
  $progs -o $o/check-tc.json
step check65537-tc 120 $o/check65537-tc.log env GQX_TC=16 GQX_TK=1 build/gemmq accuracy \
  $W/round18/probe-65537.json -q $progs -o $o/check65537-tc.json
step check65537-tc64 120 $o/check65537-tc64.log env GQX_TC=64 GQX_TCW=0 build/gemmq accuracy \
  $W/round18/probe-65537.json -q $progs -o $o/check65537-tc64.json
(cd build && step kernels-tc 120 $o/gpu_test_gpu_kernels-tc.log env GQX_TC=16 GQX_TK=1 tests/gpu_test_gpu_kernels)
tail -qn 1 $o/check*.log; grep -h "checks," $o/gpu_test_gpu_kernels-tc.log
pack
b() { local n=$1 bin=$2; shift 2
  step $n-$i 90 $o/$n-$i.log env "$@" $bin bench $W/round30/probe-miss.json $progs \
    --iterations 200 -o $o/$n-$i.json --md $o/$n-$i.md; }
for i in 1 2 3; do
  b m build-exp/r30m/gemmq GQX=0
  b x0 build/gemmq GQX=0
  b tk build/gemmq GQX_TK=1
  b tc16 build/gemmq GQX_TC=16
  b tc16k build/gemmq GQX_TC=16 GQX_TK=1
  b tc64 build/gemmq GQX_TC=64
  b tc16nw build/gemmq GQX_TC=16 GQX_TCW=0
  b nz build/gemmq GQX_NOZERO=1
  pack
done
cat $o/runs.txt
pack
