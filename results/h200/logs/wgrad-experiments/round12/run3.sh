#!/usr/bin/env bash
# run3.sh: twelfth round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round12/run3.sh
# build-exp/near: an earlier form of near2.cu + near-gather.patch, with four producer warps that
# each find every row and copy a quarter (see the patch's header).
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-3.txt
for T in 65537; do
	timeout 120 build-exp/near $T > $OUT/near-$T.log 2>&1; echo "rc=$?" >> $OUT/near-$T.log
done
cat $OUT/near-*.log
