#!/usr/bin/env bash
# run9.sh: twelfth round, call 9 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round12/run9.sh
# build-exp/bins.tgz holds build-exp/gpu_test_gpu_{kernels,programs} of a8f24cf (the consumer's
# multiplies of a stage in gq_wg_multiply_stage; PTX as before), run from build/.
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-9.txt
tar xzf build-exp/bins.tgz
mkdir -p build
for t in kernels programs; do
	(cd build && timeout 250 ../build-exp/gpu_test_gpu_$t > $OUT/gpu_test_gpu_$t-a8f24cf.log 2>&1)
	echo "gpu_test_gpu_$t rc=$?"
	tail -3 $OUT/gpu_test_gpu_$t-a8f24cf.log
done
