#!/usr/bin/env bash
# run1.sh: thirty-first round, call 1 (an H200 ×2), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round31/run1.sh
# build-exp/r31a.txz: gemmq and the GPU test programs of 44beafa (grids that zero inside the GEMM
# launched cooperatively), built with `cmake --build build`, stripped.
# On GPU 0: the nine GPU test programs (ctest -L gpu), then the calibration cases
# (scripts/calibrate's qualify step; the judge runs without a GPU) and the A/A band of
# protocols/aa-k1.json. On GPU 1 at the same time: gemmq bench --iterations 200
# protocols/k1_wgrad.json (programs.json, programs.md). Everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r31a
(
  export CUDA_VISIBLE_DEVICES=0
  for t in kernels programs det_processes reference timing timing_engine time_fault cupti_late bench; do
    (cd build && step gpu_test_gpu_$t 150 $o/gpu_test_gpu_$t.log tests/gpu_test_gpu_$t)
  done
  pack
  mkdir -p $o/cal
  for c in protocols/calibration/*.json; do
    n=$(basename $c .json)
    step cal-$n 60 $o/cal/$n.log build/gemmq qualify $c --device 0 -o $o/cal/$n.json
  done
  pack
  step aa-k1 200 $o/aa-k1.log build/gemmq time --device 0 -o $o/aa-k1.json protocols/aa-k1.json
) &
(
  export CUDA_VISIBLE_DEVICES=1
  step bench 420 $o/programs.log build/gemmq bench --device 0 --iterations 200 \
    -o $o/programs.json --md $o/programs.md protocols/k1_wgrad.json
) &
wait
grep -h "checks," $o/gpu_test_gpu_*.log
tail -qn 1 $o/cal/*.log; tail -n 1 $o/aa-k1.log; tail -n 1 $o/programs.log
cat $o/runs.txt
pack
