#!/usr/bin/env bash
# run4.sh: thirteenth round, call 4 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round13/run4.sh
# build-exp/drift: drift.cu with the hooks of trace.py on the second state of shared-tails.patch
# (every rank copies its own chunks unasked; rank 0's producer claims the tail's chunks and posts
# them ahead), the nvcc line at the top of drift.cu: static shares against tails of 4 chunks of 4
# K-blocks, 8 of 2, 16 of 2, 16 of 1 and 32 of 1, timed in 5 interleaved rounds, at T = 65537
# and 40963; every CTA's trace in $OUT/traces.
c=${CALL:-4}
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-$c.txt
mkdir -p $OUT/traces
for t in 65537 40963; do
	DRIFT_STEAL="0 4:4 8:2 16:2 16:1 32:1" DRIFT_DIR=$OUT/traces timeout 280 build-exp/drift $t 0 6 > $OUT/drift-$t-call$c.log 2>&1
	echo "rc=$?" >> $OUT/drift-$t-call$c.log
done
tar czf $OUT/traces-call$c.tgz -C $OUT traces && rm -r $OUT/traces
grep -h -E 'fastest|us \(median|against|rc=' $OUT/drift-*-call$c.log | cut -c1-220
