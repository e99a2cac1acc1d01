#!/usr/bin/env bash
# run6.sh: fourteenth round, call 6 (an H200 ×2): k1_wgrad qualified on the lean consumers with
# the three candidates that the protocol's rule takes from call 5's programs.json, both shards at
# once, from the repository root (build-exp/bins.tgz holds build-exp/gemmq of this commit):
#   bash results/h200/logs/wgrad-experiments/round14/run6.sh   (writes $OUT/k1-s{0,1}.json, .log)
tar xzf build-exp/bins.tgz
mkdir -p build && cp build-exp/gemmq build/gemmq
nvidia-smi --query-gpu=index,name,serial --format=csv,noheader | tee $OUT/gpu.txt
s=$(date +%s)
for i in 0 1; do
  build/gemmq qualify protocols/k1_wgrad.json --device $i --shard $i/2 -o $OUT/k1-s$i.json \
    > $OUT/k1-s$i.log 2>&1 &
done
wait
echo "both shards done in $(( $(date +%s) - s )) s" | tee -a $OUT/gpu.txt
tail -n 2 $OUT/k1-s0.log $OUT/k1-s1.log
