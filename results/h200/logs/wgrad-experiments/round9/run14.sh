#!/usr/bin/env bash
# run14.sh: ninth round, call 14 (one H200), from the repository root: which half of the L2 each
# line of a buffer is homed on, as each SM sees it (l2-halves.cu; build-exp/l2-halves is built with
# the nvcc line at its top)   bash results/h200/logs/wgrad-experiments/round9/run14.sh
# The call ran l2-halves.cu before its timed loop was marked `#pragma unroll 1`: the compiler had
# unrolled it by four (l2-halves.py reads the halves around that); the fixed loop was not run.
# l2-4096.bin.gz is kept; the 16384-line output (3.6 MB) is summarized in l2-halves-16384.txt.
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-14.txt
timeout 100 build-exp/l2-halves /tmp/l2-4096.bin 4096 2> $OUT/l2-halves.log; echo "rc=$?" >> $OUT/l2-halves.log
timeout 150 build-exp/l2-halves /tmp/l2-16384.bin 16384 2>> $OUT/l2-halves.log; echo "rc=$?" >> $OUT/l2-halves.log
gzip -c /tmp/l2-4096.bin > $OUT/l2-4096.bin.gz; gzip -c /tmp/l2-16384.bin > $OUT/l2-16384.bin.gz
