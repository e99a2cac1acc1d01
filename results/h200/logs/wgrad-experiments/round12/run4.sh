#!/usr/bin/env bash
# run4.sh: twelfth round, call 4 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round12/run4.sh
# build-exp/near: near.cu with a gather warp and three copy warps, built with the nvcc line at its top.
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-4.txt
for T in 65537; do
	timeout 120 build-exp/near $T > $OUT/near-$T.log 2>&1; echo "rc=$?" >> $OUT/near-$T.log
done
cat $OUT/near-*.log
