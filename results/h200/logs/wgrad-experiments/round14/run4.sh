#!/usr/bin/env bash
# run4.sh: fourteenth round, call 4 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round14/run4.sh   (writes $OUT/all.tgz after every step)
# build-exp/ab4.tgz holds build-exp/gemmq-m (7f660a7, main), build-exp/gemmq-l (call 3's lean
# consumers) and build-exp/gemmq-u with build-exp/gpu_test_gpu_{kernels,programs}-u (the same with
# the consumers' loop unrolled over the ring's stages). The unrolled build's GPU tests and FP64
# check, then the memory-bound bench of the three, three times each, interleaved, and its SASS.
c=4
tar xzf build-exp/ab4.tgz
mkdir -p build && cp build-exp/gemmq-u build/gemmq
. results/h200/logs/wgrad-experiments/round9/prologue.sh
nvidia-smi --query-gpu=name,serial --format=csv,noheader > /tmp/o/gpu-$c.txt
for t in kernels programs; do
  (cd build && timeout 150 ../build-exp/gpu_test_gpu_$t-u > /tmp/o/gpu_test_gpu_$t-u.log 2>&1)
  snap "gpu_test_gpu_$t-u rc=$?"
done
check u build-exp/gemmq-u
snap "check done"
for i in 1 2 3; do run m_$i build-exp/gemmq-m; run l_$i build-exp/gemmq-l; run u_$i build-exp/gemmq-u; done
snap "ab done"
for b in u; do
  cuobjdump -sass build-exp/gemmq-$b 2>&1 | gzip > /tmp/o/sass-$b.txt.gz
done
snap "sass done"
python3 results/h200/logs/wgrad-experiments/round3/summarize.py tsv /tmp/r/[mlu]_*.json > /tmp/o/variants-4.tsv
python3 results/h200/logs/wgrad-experiments/round8/group.py /tmp/o/variants-4.tsv m
python3 results/h200/logs/wgrad-experiments/round3/summarize.py table /tmp/o/variants-4.tsv
snap "tables done"
