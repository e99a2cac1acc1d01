#!/usr/bin/env bash
# run3.sh: x streamed past the L2 where it is large (gemm_wgmma.h, gq_wg_stream_b), as landed:
# the GPU tests of the kernels, the memory-bound bench against the kernel before it (twice,
# interleaved), the k1 accuracy of every program and the bench of all programs, from the
# repository root on one H200: bash results/h200/logs/wgrad-experiments/round5/run3.sh
# (writes $OUT/r.tgz). build/ from the commit that lands it; build-exp/gemmq-main from its parent.
# (First run on 6a64ead, where the producer chose its copies at run time; run4.sh is this on the
# commit that made them a template instance.)
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
(cd build && timeout 120 ./tests/gpu_test_gpu_kernels > /tmp/r/gpu_test_gpu_kernels.log 2>&1; echo "gpu_test_gpu_kernels rc=$?" | tee -a /tmp/r/runs.txt)
(cd build && timeout 120 ./tests/gpu_test_gpu_det_processes > /tmp/r/gpu_test_gpu_det_processes.log 2>&1; echo "gpu_test_gpu_det_processes rc=$?" | tee -a /tmp/r/runs.txt)
for rep in 1 2; do run m_$rep build-exp/gemmq-main; run n_$rep build/gemmq; done
progs=""; for p in gemmq:det gemmq:streamk; do progs="$progs -p $p"; done
for n in 64 128 256; do for s in 1 2 3 4; do progs="$progs -p gemmq:split:n$n:s$s"; done; done
{ time build/gemmq accuracy --device 0 $progs -p cublas:default -o /tmp/r/accuracy-k1-programs.json protocols/k1_wgrad_odd.json ; } > /tmp/r/accuracy-k1-programs.log 2>&1
echo "accuracy rc=$?" | tee -a /tmp/r/runs.txt; tail -3 /tmp/r/accuracy-k1-programs.log
{ time build/gemmq bench --device 0 -o /tmp/r/programs.json --md /tmp/r/programs.md protocols/k1_wgrad.json ; } > /tmp/r/programs-bench.log 2>&1
echo "bench rc=$?" | tee -a /tmp/r/runs.txt; tail -3 /tmp/r/programs-bench.log
tar czf $OUT/r.tgz -C /tmp r
