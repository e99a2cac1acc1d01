#!/usr/bin/env bash
# run1.sh: thirty-second round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round32/run1.sh
# build-exp/r32m.txz: gemmq and the GPU tests of main (4a073dc); build-exp/r32s.txz: the same
# with round32/slices.patch (round25/slices.patch carried onto 4a073dc; knobs GQX_SL, GQX_RU),
# stripped.
# 1. the FP64 check (../round4/probe-check.json, ../round18/probe-65537.json) of the split
#    programs and gemmq:det with GQX_SL=1, 5 and 7 (GQX_RU=1), and gpu_test_gpu_kernels with each;
# 2. ../round30/probe-miss.json, the split programs and gemmq:det beside cuBLASLt's top 8, 200
#    timed replays, each variant in turn, three times.
. results/h200/logs/wgrad-experiments/round29/start.sh r32s r32m
progs="-p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
for z in 1 5 7; do
  step check-sl$z 90 $o/check-sl$z.log env GQX_SL=$z GQX_RU=1 build/gemmq accuracy \
    $W/round4/probe-check.json -q $progs -p gemmq:split:n64:s4 -p gemmq:split:n128:s2 \
    -p gemmq:det -o $o/check-sl$z.json
  step check65537-sl$z 120 $o/check65537-sl$z.log env GQX_SL=$z GQX_RU=1 build/gemmq accuracy \
    $W/round18/probe-65537.json -q $progs -p gemmq:det -o $o/check65537-sl$z.json
  (cd build && step kernels-sl$z 120 $o/gpu_test_gpu_kernels-sl$z.log env GQX_SL=$z GQX_RU=1 \
    tests/gpu_test_gpu_kernels)
done
tail -qn 1 $o/check*.log; grep -h "checks," $o/gpu_test_gpu_kernels-sl*.log
pack
b() { local n=$1 bin=$2; shift 2
  step $n-$i 90 $o/$n-$i.log env "$@" $bin bench $W/round30/probe-miss.json $progs -p gemmq:det \
    --iterations 200 -o $o/$n-$i.json --md $o/$n-$i.md; }
for i in 1 2 3; do
  b m build-exp/r32m/gemmq GQX=0
  b x0 build/gemmq GQX=0
  b s1 build/gemmq GQX_SL=1
  b s1r build/gemmq GQX_SL=1 GQX_RU=1
  b s5 build/gemmq GQX_SL=5
  b s5r build/gemmq GQX_SL=5 GQX_RU=1
  b s7r build/gemmq GQX_SL=7 GQX_RU=1
  pack
done
cat $o/runs.txt
pack
