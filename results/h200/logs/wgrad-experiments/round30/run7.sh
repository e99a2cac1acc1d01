#!/usr/bin/env bash
# run7.sh: thirtieth round, call 7 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round30/run7.sh
# build-exp/r30l.txz as in run5.sh (9b2e530's code); build-exp/r30q.txz: gemmq,
# gpu_test_gpu_kernels and _programs of d0806bb with round30/coop.patch (GQX_COOP=1: a grid that
# zeroes its sums inside the GEMM launched cooperatively, with its clusters where it has them),
# stripped.
# 1. the FP64 check (../round18/probe-65537.json) and gpu_test_gpu_kernels, _programs with
#    GQX_COOP=1;
# 2. probe-miss.json, the split programs beside cuBLASLt's top 8, 200 timed replays, 9b2e530's
#    build (m) and GQX_COOP=1 (coop) in turn, twice.
. results/h200/logs/wgrad-experiments/round29/start.sh r30q r30l
progs="-p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
step check65537-coop 120 $o/check65537-coop.log env GQX_COOP=1 build/gemmq accuracy \
  $W/round18/probe-65537.json -q $progs -o $o/check65537-coop.json
for t in kernels programs; do
  (cd build && step $t-coop 150 $o/gpu_test_gpu_$t-coop.log env GQX_COOP=1 tests/gpu_test_gpu_$t)
done
tail -qn 1 $o/check*.log; grep -h "checks," $o/gpu_test_gpu_*-coop.log
pack
for i in 1 2; do
  step m-$i 90 $o/m-$i.log build-exp/r30l/gemmq bench $W/round30/probe-miss.json $progs \
    --iterations 200 -o $o/m-$i.json --md $o/m-$i.md
  step coop-$i 90 $o/coop-$i.log env GQX_COOP=1 build/gemmq bench $W/round30/probe-miss.json \
    $progs --iterations 200 -o $o/coop-$i.json --md $o/coop-$i.md
done
cat $o/runs.txt
pack
