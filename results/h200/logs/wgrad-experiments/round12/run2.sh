#!/usr/bin/env bash
# run2.sh: twelfth round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round12/run2.sh
# build-exp/near: an earlier form of near2.cu + near-gather.patch, with one producer warp that
# finds and copies every row (see the patch's header).
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-2.txt
for T in 65537 40963; do
	timeout 120 build-exp/near $T > $OUT/near-$T.log 2>&1; echo "rc=$?" >> $OUT/near-$T.log
done
cat $OUT/near-*.log
