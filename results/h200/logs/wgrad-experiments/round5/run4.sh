#!/usr/bin/env bash
# run4.sh: run3.sh again, on the kernel whose BM = 64 tiles stream x as a template instance, in
# the order that keeps the most if the device time runs out (results straight into $OUT): the
# GPU tests of the kernels, the bench of all programs, the memory-bound bench of the kernel
# before it and of this one (once each), the k1 accuracy of every program, from the repository
# root on one H200: bash results/h200/logs/wgrad-experiments/round5/run4.sh (writes into $OUT). build/ from that commit; build-exp/gemmq-main from 294054d (the kernel
# before the change).
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
(cd build && timeout 120 ./tests/gpu_test_gpu_kernels > /tmp/r/gpu_test_gpu_kernels.log 2>&1; echo "gpu_test_gpu_kernels rc=$?" | tee -a $OUT/runs.txt)
(cd build && timeout 120 ./tests/gpu_test_gpu_det_processes > /tmp/r/gpu_test_gpu_det_processes.log 2>&1; echo "gpu_test_gpu_det_processes rc=$?" | tee -a $OUT/runs.txt)
{ time build/gemmq bench --device 0 -o $OUT/programs.json --md $OUT/programs.md protocols/k1_wgrad.json ; } > $OUT/programs-bench.log 2>&1
echo "bench rc=$?" | tee -a $OUT/runs.txt
run m_1 build-exp/gemmq-main; run n_1 build/gemmq
tar czf $OUT/ab.tgz -C /tmp r
progs=""; for p in gemmq:det gemmq:streamk; do progs="$progs -p $p"; done
for n in 64 128 256; do for s in 1 2 3 4; do progs="$progs -p gemmq:split:n$n:s$s"; done; done
{ time build/gemmq accuracy --device 0 $progs -p cublas:default -o $OUT/accuracy-k1-programs.json protocols/k1_wgrad_odd.json ; } > $OUT/accuracy-k1-programs.log 2>&1
echo "accuracy rc=$?" | tee -a $OUT/runs.txt

