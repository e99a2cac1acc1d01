#!/usr/bin/env bash
# run2.sh: thirtieth round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round30/run2.sh
# build-exp/r30m.txz: gemmq of main (0d6b8c9); build-exp/r30z.txz: gemmq and gpu_test_gpu_kernels
# of 0d6b8c9 with round30/tz.patch (knobs GQX_TZ=1|2, GQX_NOZERO), stripped.
# 1. the FP64 check (../round4/probe-check.json, ../round18/probe-65537.json) of the split
#    programs with GQX_TZ=1 and 2, and gpu_test_gpu_kernels with each;
# 2. probe-miss.json, the split programs beside cuBLASLt's top 8, 200 timed replays, each
#    variant in turn, three times.
. results/h200/logs/wgrad-experiments/round29/start.sh r30z r30m
progs="-p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
for z in 1 2; do
  step check-tz$z 90 $o/check-tz$z.log env GQX_TZ=$z build/gemmq accuracy $W/round4/probe-check.json \
    -q $progs -p gemmq:split:n64:s4 -p gemmq:split:n128:s2 -o $o/check-tz$z.json
  step check65537-tz$z 120 $o/check65537-tz$z.log env GQX_TZ=$z build/gemmq accuracy \
    $W/round18/probe-65537.json -q $progs -o $o/check65537-tz$z.json
  (cd build && step kernels-tz$z 120 $o/gpu_test_gpu_kernels-tz$z.log env GQX_TZ=$z tests/gpu_test_gpu_kernels)
done
tail -qn 1 $o/check*.log; grep -h "checks," $o/gpu_test_gpu_kernels-tz*.log
pack
b() { local n=$1 bin=$2; shift 2
  step $n-$i 90 $o/$n-$i.log env "$@" $bin bench $W/round30/probe-miss.json $progs \
    --iterations 200 -o $o/$n-$i.json --md $o/$n-$i.md; }
for i in 1 2 3; do
  b m build-exp/r30m/gemmq GQX=0
  b x0 build/gemmq GQX=0
  b tz1 build/gemmq GQX_TZ=1
  b tz2 build/gemmq GQX_TZ=2
  b nz build/gemmq GQX_NOZERO=1
  pack
done
cat $o/runs.txt
pack
