#!/usr/bin/env bash
# run3.sh: sixth round, call 4 (one H200, another than call 2's), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round6/run3.sh   (writes into $OUT)
# build/gemmq from 43aef25 (the kernel of 5c14102); build-exp/placement from placement.cu (the
# nvcc line at its top). Where the CTAs land with and without clusters, then the bench of every
# program at the 96 memory-bound points on this H200.
# (runs-3.txt also holds the last lines of membound-bench.log; variants-3.tsv is
# `../round3/summarize.py tsv membound-bench.json`, the run named other-h200.)
nvidia-smi --query-gpu=name,serial,clocks.max.mem,clocks.max.sm --format=csv,noheader | tee $OUT/gpu-3.txt
build-exp/placement > $OUT/placement.txt 2>&1; echo "placement rc=$?" | tee $OUT/runs-3.txt
{ time build/gemmq bench --device 0 -q -o $OUT/membound-bench.json protocols/k1_wgrad_membound.json ; } > $OUT/membound-bench.log 2>&1
echo "bench rc=$?" | tee -a $OUT/runs-3.txt
