#!/usr/bin/env bash
# run3.sh: thirteenth round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round13/run3.sh
# build-exp/drift: drift.cu with the hooks of trace.py on the first state of shared-tails.patch
# (the producer of rank 0 claims every chunk, own ones too, and posts each as it starts it), the
# nvcc line at the top of drift.cu, with tails of 0 (static), 4, 8 and 16 chunks of 4 K-blocks,
# at T = 65537 and 40963; every CTA's trace in $OUT/traces.
c=${CALL:-3}
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-$c.txt
mkdir -p $OUT/traces
for t in 65537 40963; do
	DRIFT_STEAL="0 4 8 16" DRIFT_DIR=$OUT/traces timeout 250 build-exp/drift $t > $OUT/drift-$t-call$c.log 2>&1
	echo "rc=$?" >> $OUT/drift-$t-call$c.log
done
tar czf $OUT/traces-call$c.tgz -C $OUT traces && rm -r $OUT/traces
grep -h -E '^[0-9]|ends|rc=' $OUT/drift-*-call$c.log | cut -c1-300
