#!/usr/bin/env bash
# run6.sh: thirteenth round, call 6 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round13/run6.sh
# build-exp/drift-old (drift.cu on the committed kernel, ca46f66) and build-exp/drift (drift.cu
# with -DDRIFT_TAILS on shared-tails.patch as kept: the last stage holds zeros and is marked, its
# mark read after the multiplies), the nvcc lines at the top of drift.cu: static shares against
# tails of 4, 8 and 16 chunks of 4 K-blocks and 8 of 2, each binary twice, alternating, at
# T = 65537, then once each at 40963.
c=${CALL:-6}
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-$c.txt
mkdir -p $OUT/traces
for t in 65537 65537 40963; do
	timeout 100 build-exp/drift-old $t 0 6 >> $OUT/drift-old-$t-call$c.log 2>&1
	echo "rc=$?" >> $OUT/drift-old-$t-call$c.log
	DRIFT_STEAL="0 4:4 8:4 16:4 8:2" DRIFT_DIR=$OUT/traces timeout 200 build-exp/drift $t 0 6 >> $OUT/drift-$t-call$c.log 2>&1
	echo "rc=$?" >> $OUT/drift-$t-call$c.log
done
tar czf $OUT/traces-call$c.tgz -C $OUT traces && rm -r $OUT/traces
for f in $OUT/drift-old-65537-call$c.log $OUT/drift-65537-call$c.log $OUT/drift-old-40963-call$c.log $OUT/drift-40963-call$c.log; do echo "== $(basename $f)"; grep -h -E 'fastest|us \(median|rc=' $f | cut -c1-120; done
