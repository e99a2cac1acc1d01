#!/usr/bin/env bash
# run2.sh: eleventh round, call 2 (an H200 ×2): k1_wgrad qualified on 73ebb71 with the six
# candidates that the protocol's rule takes from call 1's programs.json, both shards at once,
# from the repository root (build/gemmq is 73ebb71):
#   bash results/h200/logs/wgrad-experiments/round11/run2.sh   (writes $OUT/k1-s{0,1}.json, .log)
nvidia-smi --query-gpu=index,name,serial --format=csv,noheader | tee $OUT/gpu.txt
s=$(date +%s)
for i in 0 1; do
  build/gemmq qualify protocols/k1_wgrad.json --device $i --shard $i/2 -o $OUT/k1-s$i.json \
    > $OUT/k1-s$i.log 2>&1 &
done
wait
echo "both shards done in $(( $(date +%s) - s )) s" | tee -a $OUT/gpu.txt
tail -n 2 $OUT/k1-s0.log $OUT/k1-s1.log
