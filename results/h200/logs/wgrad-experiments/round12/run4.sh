#!/usr/bin/env bash
# run4.sh: twelfth round, call 4 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round12/run4.sh
# build-exp/near: near2.cu + near-gather.patch as of call 5 without the clock counts (see the
# patch's header).
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-4.txt
for T in 65537; do
	timeout 120 build-exp/near $T > $OUT/near-$T.log 2>&1; echo "rc=$?" >> $OUT/near-$T.log
done
cat $OUT/near-*.log
