#!/usr/bin/env bash
# run1.sh: thirteenth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round13/run1.sh
# build-exp/drift (drift.cu with the hooks of trace.py, the nvcc line at the top of drift.cu) at
# T = 65537 and 40963.
c=${CALL:-1}
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-$c.txt
for t in 65537 40963; do
	timeout 200 build-exp/drift $t > $OUT/drift-$t-call$c.log 2>&1
	echo "rc=$?" >> $OUT/drift-$t-call$c.log
done
cat $OUT/drift-*-call$c.log
