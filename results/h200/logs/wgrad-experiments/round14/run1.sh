#!/usr/bin/env bash
# run1.sh: fourteenth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round14/run1.sh   (writes $OUT/all.tgz after every step)
# Every GPU test program (ctest -L gpu) of 7f660a7, built here into build/tests and carried in
# build-exp/bins.tgz with build-exp/gemmq, run from build/ as ctest runs them; then build-exp/clock
# (clock.cu, the nvcc line at its top) at T = 65537 and 40963, with nvidia-smi sampling the clocks,
# the power and the clock event reasons every 20 ms beside it.
# (The run wrote the serial to gpu-1.txt and had the eleventh round's test loop written out here;
# the loop is now ../round11/run4.sh's, sourced, which also defines snap and writes gpu.txt.)
mkdir -p /tmp/o
tar xzf build-exp/bins.tgz
mkdir -p build && cp build-exp/gemmq build/gemmq
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE,TEMPERATURE > /tmp/o/smi-q.txt 2>&1
. results/h200/logs/wgrad-experiments/round11/run4.sh
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
