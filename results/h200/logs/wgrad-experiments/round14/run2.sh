#!/usr/bin/env bash
# run2.sh: fourteenth round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round14/run2.sh   (writes $OUT/all.tgz after every step)
# build-exp/energy (energy.cu on pad.py's kernel, the nvcc line at the top of energy.cu) at
# T = 65537 and 40963.
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,serial --format=csv,noheader | tee /tmp/o/gpu-2.txt
snap() { echo "$1" | tee -a /tmp/o/runs.txt; tar czf $OUT/all.tgz -C /tmp o; }
for t in 65537 40963; do
  CUDA_MODULE_LOADING=EAGER timeout 250 build-exp/energy $t > /tmp/o/energy-$t.log 2>&1
  snap "energy $t rc=$?"
done
cat /tmp/o/energy-*.log
