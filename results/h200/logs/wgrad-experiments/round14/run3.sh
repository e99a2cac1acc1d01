#!/usr/bin/env bash
# run3.sh: fourteenth round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round14/run3.sh   (writes $OUT/all.tgz after every step)
# build-exp/ab3.tgz holds build-exp/gemmq-m (7f660a7, main) and build-exp/gemmq-l with
# build-exp/gpu_test_gpu_{kernels,programs}-l (the lean consumers: descriptors as their low words,
# the warpgroup index broadcast from lane 0, the cluster's barriers mapped once). The lean build's
# GPU tests and FP64 check, then the memory-bound bench of both, three times each, interleaved,
# and both builds' SASS.
c=3
tar xzf build-exp/ab3.tgz
mkdir -p build && cp build-exp/gemmq-l build/gemmq
. results/h200/logs/wgrad-experiments/round9/prologue.sh
nvidia-smi --query-gpu=name,serial --format=csv,noheader > /tmp/o/gpu-$c.txt
for t in kernels programs; do
  (cd build && timeout 150 ../build-exp/gpu_test_gpu_$t-l > /tmp/o/gpu_test_gpu_$t-l.log 2>&1)
  snap "gpu_test_gpu_$t-l rc=$?"
done
check l build-exp/gemmq-l
snap "check done"
for i in 1 2 3; do run m_$i build-exp/gemmq-m; run l_$i build-exp/gemmq-l; done
snap "ab done"
for b in m l; do
  cuobjdump -sass build-exp/gemmq-$b 2>&1 | gzip > /tmp/o/sass-$b.txt.gz
done
snap "sass done"
python3 results/h200/logs/wgrad-experiments/round3/summarize.py tsv /tmp/r/[ml]_*.json > /tmp/o/variants-3.tsv
python3 results/h200/logs/wgrad-experiments/round8/group.py /tmp/o/variants-3.tsv m
python3 results/h200/logs/wgrad-experiments/round3/summarize.py table /tmp/o/variants-3.tsv
snap "tables done"
