#!/usr/bin/env bash
# run4.sh: twenty-ninth round, call 4 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round29/run4.sh
# build-exp/r29z.txz: gemmq and gpu_test_gpu_kernels of bd11c76 with zero.patch (the knob
# GQX_ZERO: 0 or unset, the memset as on main; 1, the sums zeroed by a small kernel whose
# programmatic dependent is the GEMM, which waits for it only before its adds; 2, as 1 with FP32
# out, and with BF16 out no zeroing in the op: the workspace is zeroed once when prepared and the
# rounding kernel zeroes each float4 behind its read), built with `cmake --build build`, stripped.
# 1. the FP64 check (../round4/probe-check.json, T = 1025 and 16173; ../round18/probe-65537.json)
#    of n128:s4, n256:s4 and n320:s4 with GQX_ZERO=1 and 2;
# 2. gpu_test_gpu_kernels with GQX_ZERO=1 and 2;
# 3. probe-zero.json with the same three split programs beside cuBLASLt's top 8, 200 timed
#    replays, GQX_ZERO=0, 1, 2 interleaved, twice.
# Everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r29z
progs="-p gemmq:split:n128:s4 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
for z in 1 2; do
  step check-z$z 90 $o/check-z$z.log env GQX_ZERO=$z build/gemmq accuracy \
    $W/round4/probe-check.json -q $progs -o $o/check-z$z.json
  step check65537-z$z 120 $o/check65537-z$z.log env GQX_ZERO=$z build/gemmq accuracy \
    $W/round18/probe-65537.json -q $progs -o $o/check65537-z$z.json
  (cd build && step kernels-z$z 120 $o/gpu_test_gpu_kernels-z$z.log env GQX_ZERO=$z \
    tests/gpu_test_gpu_kernels)
done
tail -n 2 $o/check*.log; grep -h "checks," $o/gpu_test_gpu_kernels-z*.log
pack
for i in 1 2; do
  for z in 0 1 2; do
    step z$z-$i 90 $o/z$z-$i.log env GQX_ZERO=$z build/gemmq bench $W/round29/probe-zero.json \
      $progs --iterations 200 -o $o/z$z-$i.json --md $o/z$z-$i.md
  done
done
cat $o/runs.txt
pack
