#!/usr/bin/env bash
# run1.sh: fourteenth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round14/run1.sh   (writes $OUT/all.tgz after every step)
# Every GPU test program (ctest -L gpu) of 7f660a7, built here into build/tests and carried in
# build-exp/bins.tgz with build-exp/gemmq, run from build/ as ctest runs them; then build-exp/clock
# (clock.cu, the nvcc line at its top) at T = 65537 and 40963, with nvidia-smi sampling the clocks,
# the power and the clock event reasons every 20 ms beside it.
mkdir -p /tmp/o
tar xzf build-exp/bins.tgz
mkdir -p build && cp build-exp/gemmq build/gemmq
nvidia-smi --query-gpu=name,serial --format=csv,noheader | tee /tmp/o/gpu-1.txt
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE,TEMPERATURE > /tmp/o/smi-q.txt 2>&1
snap() { echo "$1" | tee -a /tmp/o/runs.txt; tar czf $OUT/all.tgz -C /tmp o; }
for t in reference timing timing_engine time_fault cupti_late kernels programs det_processes; do
  s=$(date +%s)
  (cd build && timeout 300 ../build-exp/gpu_test_gpu_$t > /tmp/o/gpu_test_gpu_$t.log 2>&1)
  snap "gpu_test_gpu_$t rc=$? $(( $(date +%s) - s )) s"
done
q=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active
nvidia-smi --query-gpu=$q --format=csv -lms 20 > /tmp/o/smi.csv 2>&1 &
smi=$!
for t in 65537 40963; do
  timeout 200 build-exp/clock $t > /tmp/o/clock-$t.log 2>&1
  snap "clock $t rc=$?"
done
kill $smi
snap "done"
cat /tmp/o/clock-*.log
