#!/usr/bin/env bash
# run5.sh: twelfth round, call 5 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round12/run5.sh
# build-exp/near: near2.cu + near-gather.patch (its header has the build lines), before halves.h
# and stream.h held its measurements and timing.
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-5.txt
timeout 120 build-exp/near 65537 4096 > $OUT/near-65537.log 2>&1; echo "rc=$?" >> $OUT/near-65537.log
cat $OUT/near-*.log
