#!/usr/bin/env bash
# run1.sh: twelfth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round12/run1.sh
# build-exp/l2-near: l2-near.cu (the nvcc line at its top), before halves.h and stream.h held
# its measurements and timing.
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-1.txt
for m in 512 640; do
	timeout 120 build-exp/l2-near /tmp/homes-$m.bin $m 15 > $OUT/l2-near-$m.log 2>&1
	echo "rc=$?" >> $OUT/l2-near-$m.log
	gzip -c /tmp/homes-$m.bin > $OUT/homes-$m.bin.gz
done
cat $OUT/l2-near-*.log
