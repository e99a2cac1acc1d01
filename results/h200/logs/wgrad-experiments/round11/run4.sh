#!/usr/bin/env bash
# run4.sh: eleventh round, call 4 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round11/run4.sh   (writes $OUT/all.tgz after every step)
# Every GPU test program (ctest -L gpu) of 6e7bc30, built here into build/tests and carried in
# build-exp/, run from build/ as ctest runs them, with build/gemmq of 6e7bc30.
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,serial --format=csv,noheader | tee /tmp/o/gpu.txt
snap() { echo "$1" | tee -a /tmp/o/runs.txt; tar czf $OUT/all.tgz -C /tmp o; }
for t in reference timing timing_engine time_fault cupti_late kernels programs det_processes; do
  s=$(date +%s)
  (cd build && timeout 300 ../build-exp/gpu_test_gpu_$t > /tmp/o/gpu_test_gpu_$t.log 2>&1)
  snap "gpu_test_gpu_$t rc=$? $(( $(date +%s) - s )) s"
done
