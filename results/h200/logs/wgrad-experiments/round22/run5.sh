#!/usr/bin/env bash
# run5.sh: twenty-second round, calls 5 and later (an H200 ×2 each), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round22/run5.sh   (writes $OUT/all.tgz at the end)
# build-exp/r22b.txz as in run2.sh (5a3bdba, kernels of e876441). On each GPU at once
# (CUDA_VISIBLE_DEVICES): the memory-bound points with the six split programs of run1.sh, 200
# timed replays, --sm-clock, once (eG); nvidia-smi before and after (smi.csv). More H200s, to
# find one where the goal is missed as on call 1's GPU 0 and see its clocks.
c=${C:?give the call number in C}
. results/h200/logs/wgrad-experiments/round22/start.sh
each_gpu_bench
smi_after
snap "all done"
