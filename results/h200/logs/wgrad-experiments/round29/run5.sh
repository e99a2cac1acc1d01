#!/usr/bin/env bash
# run5.sh: twenty-ninth round, call 5 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round29/run5.sh
# build-exp/r29k.txz: gemmq and gpu_test_gpu_kernels of 7059e6d with ../round22/zero-in-kernel.patch
# (the knob GQX_ZK=1: split 0 zeroes its tile's sums inside the GEMM, the other splits' adds wait
# for it through counters; no memset node), built with `cmake --build build`, stripped.
# 1. the FP64 check (../round4/probe-check.json, ../round18/probe-65537.json) of n128:s4, n256:s4
#    and n320:s4 with GQX_ZK=1, and gpu_test_gpu_kernels with it;
# 2. probe-zero.json with the same three split programs beside cuBLASLt's top 8, 200 timed
#    replays, without the knob (m) and with it (k), interleaved, twice.
# Everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r29k
progs="-p gemmq:split:n128:s4 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
step check-k 90 $o/check-k.log env GQX_ZK=1 build/gemmq accuracy $W/round4/probe-check.json -q \
  $progs -o $o/check-k.json
step check65537-k 120 $o/check65537-k.log env GQX_ZK=1 build/gemmq accuracy \
  $W/round18/probe-65537.json -q $progs -o $o/check65537-k.json
(cd build && step kernels-k 120 $o/gpu_test_gpu_kernels-k.log env GQX_ZK=1 tests/gpu_test_gpu_kernels)
tail -qn 1 $o/check*.log; grep -h "checks," $o/gpu_test_gpu_kernels-k.log
pack
for i in 1 2; do
  step m-$i 90 $o/m-$i.log build/gemmq bench $W/round29/probe-zero.json $progs --iterations 200 \
    -o $o/m-$i.json --md $o/m-$i.md
  step k-$i 90 $o/k-$i.log env GQX_ZK=1 build/gemmq bench $W/round29/probe-zero.json $progs \
    --iterations 200 -o $o/k-$i.json --md $o/k-$i.md
done
cat $o/runs.txt
pack
