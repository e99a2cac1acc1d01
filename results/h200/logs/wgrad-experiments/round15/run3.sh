#!/usr/bin/env bash
# run3.sh: fifteenth round, call 3 (an H200 ×2), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round15/run3.sh   (writes $OUT/all.tgz after every step)
# build-exp/bins3.txz holds build-exp/gemmq and the GPU test programs that run our kernels, of
# 12a46b7 (pipelined consumers for the WN = 128 tiles), and build-exp/gemmq-m (913fd83). On GPU 0
# what every landed kernel gets (../round10/landed.sh: the three GPU tests, the bench of
# protocols/k1_wgrad.json, the accuracy of the 14 programs and cublas:default); on GPU 1 at the
# same time the memory-bound bench of 12a46b7 (n) and 913fd83 (m), three times each, interleaved.
c=3
tar xJf build-exp/bins3.txz
mkdir -p build && cp build-exp/gemmq build/gemmq
rm -rf /tmp/o /tmp/r   # a machine may hold an earlier session's
. results/h200/logs/wgrad-experiments/round9/prologue.sh
. results/h200/logs/wgrad-experiments/round10/landed.sh
nvidia-smi --query-gpu=index,name,serial --format=csv,noheader > /tmp/o/gpu-$c.txt
(for i in 1 2 3; do for b in m n; do
   bin=build-exp/gemmq-$b; [ $b = n ] && bin=build-exp/gemmq
   run ${b}_$i $bin CUDA_VISIBLE_DEVICES=1
 done; done; echo "ab done" >> /tmp/o/runs.txt) &
landed
wait
tables "m n"
