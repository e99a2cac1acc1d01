#!/usr/bin/env bash
# run5.sh: fourteenth round, call 5 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round14/run5.sh   (writes $OUT/all.tgz after every step)
# build-exp/bins.tgz holds build-exp/gemmq and every GPU test program (ctest -L gpu) of 468611f
# (the lean consumers); build/gemmq is build-exp/gemmq. The five GPU tests that do not run our
# kernels, then what every landed kernel gets (../round10/landed.sh): the three that do, the bench
# of protocols/k1_wgrad.json and the accuracy of all 14 programs and cublas:default on
# protocols/k1_wgrad_odd.json.
c=5
tar xzf build-exp/bins.tgz
mkdir -p build && cp build-exp/gemmq build/gemmq
. results/h200/logs/wgrad-experiments/round9/prologue.sh
. results/h200/logs/wgrad-experiments/round10/landed.sh
nvidia-smi --query-gpu=name,serial --format=csv,noheader > /tmp/o/gpu-$c.txt
for t in reference timing timing_engine time_fault cupti_late; do gputest $t 100; done
landed
