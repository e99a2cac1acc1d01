#!/usr/bin/env bash
# run6.sh: twenty-second round, calls 7 and later (an H200 ×2 each), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round22/run6.sh   (writes $OUT/all.tgz at the end)
# run5.sh's bench (r22b: 5a3bdba, --sm-clock, 200 replays, eG) on each GPU, after layout.cu
# (build-exp/r22l.txz, built as its header says) on each: the GPU's SMs grouped by GPC and where
# 128 CTAs in clusters of two land (layout-gG.txt). Call 7 ran layout.cu with clusters of 16, 8
# and 2 for the groups, call 8 with clusters of 16 down to 3 (the file as it is now).
c=${C:?give the call number in C}
tar xJf build-exp/r22l.txz
. results/h200/logs/wgrad-experiments/round22/start.sh
each_gpu_bench layout
smi_after
snap "all done"
