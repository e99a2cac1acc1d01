#!/usr/bin/env bash
# run6.sh: twelfth round, call 6 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round12/run6.sh
# build-exp/near2: near2.cu (the nvcc line at its top), before halves.h and stream.h held its
# measurements and timing.
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-6.txt
timeout 150 build-exp/near2 65537 > $OUT/near2-65537.log 2>&1; echo "rc=$?" >> $OUT/near2-65537.log
cat $OUT/near2-*.log
