#!/usr/bin/env bash
# run7.sh: thirteenth round, call 7 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round13/run7.sh
# build-exp/bins.tgz holds build-exp/gemmq and build-exp/gpu_test_gpu_{kernels,programs,
# det_processes} of the commit that puts gemmq:streamk's wgrad layout on the wgmma kernels; the
# tests run from build/ (with build/gemmq).
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-7.txt
tar xzf build-exp/bins.tgz
mkdir -p build && cp build-exp/gemmq build/gemmq
for t in kernels programs det_processes; do
	(cd build && timeout 250 ../build-exp/gpu_test_gpu_$t > $OUT/gpu_test_gpu_$t.log 2>&1)
	echo "gpu_test_gpu_$t rc=$?"
	tail -4 $OUT/gpu_test_gpu_$t.log
done
grep -i 'streamk' $OUT/gpu_test_gpu_kernels.log | grep -v ' ok' | head -20
