#!/usr/bin/env bash
# run5.sh: sixth round, call 6 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round6/run5.sh   (writes $OUT/r.tgz and runs.txt)
# build/gemmq and build-exp/gpu_test_gpu_{kernels,det_processes} from 8ddcb10 (A's box width
# computed from M in the kernel instead of passed in); build-exp/gemmq-5c14102 from 5c14102.
# The GPU tests of the kernels on 8ddcb10, then the memory-bound bench of both, twice, interleaved.
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
(cd build && timeout 120 ../build-exp/gpu_test_gpu_kernels > /tmp/r/gpu_test_gpu_kernels.log 2>&1; echo "gpu_test_gpu_kernels rc=$?" | tee -a /tmp/r/runs.txt)
(cd build && timeout 120 ../build-exp/gpu_test_gpu_det_processes > /tmp/r/gpu_test_gpu_det_processes.log 2>&1; echo "gpu_test_gpu_det_processes rc=$?" | tee -a /tmp/r/runs.txt)
for rep in 1 2; do run o_$rep build-exp/gemmq-5c14102; run r_$rep build/gemmq; done
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
