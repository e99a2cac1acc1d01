#!/usr/bin/env bash
# run3.sh: thirty-second round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round32/run3.sh
# build-exp/r32r.txz: gemmq and gpu_test_gpu_bench of 6b4cdfb (its check of the note fixed);
# build-exp/r32q.txz: gemmq of d000c3f with round32/slices.patch (knobs GQX_SL, GQX_RU).
# 1. gpu_test_gpu_bench;
# 2. ../round30/probe-miss.json with the four split programs beside cuBLASLt's top 8, 200 timed
#    replays and --sm-clock: main (m) and BF16 out through slices stored by the TMA unit (s5r),
#    in turn, twice. Each program's pieces say how long its GEMM kernel took.
. results/h200/logs/wgrad-experiments/round29/start.sh r32r r32q
(cd build && step gpu_test_gpu_bench 150 $o/gpu_test_gpu_bench.log tests/gpu_test_gpu_bench)
grep -h "checks," $o/gpu_test_gpu_*.log
pack
progs="-p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
b() { local n=$1 bin=$2; shift 2
  step $n-$i 90 $o/$n-$i.log env "$@" $bin bench $W/round30/probe-miss.json $progs -p gemmq:det \
    --iterations 200 --sm-clock -o $o/$n-$i.json --md $o/$n-$i.md; }
for i in 1 2; do
  b m build/gemmq GQX=0
  b s5r build-exp/r32q/gemmq GQX_SL=5 GQX_RU=1
  pack
done
cat $o/runs.txt
pack
