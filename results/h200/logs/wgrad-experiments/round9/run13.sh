#!/usr/bin/env bash
# run13.sh: ninth round, call 13 (one H200), from the repository root: a second bench of every
# program on a730d18 (build/gemmq), for the spread of the goal's count between H200s
#   bash results/h200/logs/wgrad-experiments/round9/run13.sh   (writes $OUT/programs-2.*)
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-13.txt
{ time build/gemmq bench --device 0 -o $OUT/programs-2.json protocols/k1_wgrad.json ; } > $OUT/programs-2.log 2>&1
echo "bench rc=$?" >> $OUT/programs-2.log
