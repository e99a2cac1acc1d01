#!/usr/bin/env bash
# run2.sh: thirteenth round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round13/run2.sh
# build-exp/drift (drift.cu with the hooks of trace.py and the GPC probe, the nvcc line at the top
# of drift.cu) at T = 65537 and 40963, every CTA's trace in $OUT/traces.
c=${CALL:-2}
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-$c.txt
mkdir -p $OUT/traces
for t in 65537 40963; do
	DRIFT_DIR=$OUT/traces timeout 200 build-exp/drift $t > $OUT/drift-$t-call$c.log 2>&1
	echo "rc=$?" >> $OUT/drift-$t-call$c.log
done
tar czf $OUT/traces-call$c.tgz -C $OUT traces && rm -r $OUT/traces
grep -h -E '^#|^[0-9]|by GPC|ends' $OUT/drift-*-call$c.log | cut -c1-400
