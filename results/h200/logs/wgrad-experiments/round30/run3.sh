#!/usr/bin/env bash
# run3.sh: thirtieth round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round30/run3.sh
# build-exp/r30m.txz: gemmq of main (0d6b8c9); build-exp/r30c.txz: gemmq and gpu_test_gpu_kernels
# of 0d6b8c9 with round30/tzc.patch (knobs GQX_TZ=1|2|3, GQX_TC=R, GQX_TCW=0, GQX_NOZERO),
# stripped.
# 1. the FP64 check (../round4/probe-check.json, ../round18/probe-65537.json) of the split
#    programs with GQX_TZ=3, and with GQX_TZ=3 GQX_TC=4 and 16; gpu_test_gpu_kernels with
#    GQX_TZ=3 GQX_TC=8;
# 2. probe-miss.json, the split programs beside cuBLASLt's top 8, 200 timed replays, each
#    variant in turn, three times.
. results/h200/logs/wgrad-experiments/round29/start.sh r30c r30m
progs="-p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
for v in "3 0" "3 4" "3 16"; do set -- $v
  step check-tz$1c$2 90 $o/check-tz$1c$2.log env GQX_TZ=$1 GQX_TC=$2 build/gemmq accuracy \
    $W/round4/probe-check.json -q $progs -p gemmq:split:n64:s4 -p gemmq:split:n128:s2 \
    -o $o/check-tz$1c$2.json
  step check65537-tz$1c$2 120 $o/check65537-tz$1c$2.log env GQX_TZ=$1 GQX_TC=$2 build/gemmq \
    accuracy $W/round18/probe-65537.json -q $progs -o $o/check65537-tz$1c$2.json
done
(cd build && step kernels-tz3c8 120 $o/gpu_test_gpu_kernels-tz3c8.log env GQX_TZ=3 GQX_TC=8 \
  tests/gpu_test_gpu_kernels)
tail -qn 1 $o/check*.log; grep -h "checks," $o/gpu_test_gpu_kernels-*.log
pack
b() { local n=$1 bin=$2; shift 2
  step $n-$i 90 $o/$n-$i.log env "$@" $bin bench $W/round30/probe-miss.json $progs \
    --iterations 200 -o $o/$n-$i.json --md $o/$n-$i.md; }
for i in 1 2 3; do
  b m build-exp/r30m/gemmq GQX=0
  b tz1 build/gemmq GQX_TZ=1
  b tz3 build/gemmq GQX_TZ=3
  b tz3c4 build/gemmq GQX_TZ=3 GQX_TC=4
  b tz3c16 build/gemmq GQX_TZ=3 GQX_TC=16
  b tz3c16nw build/gemmq GQX_TZ=3 GQX_TC=16 GQX_TCW=0
  b nz build/gemmq GQX_NOZERO=1
  pack
done
cat $o/runs.txt
pack
