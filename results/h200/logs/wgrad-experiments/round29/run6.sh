#!/usr/bin/env bash
# run6.sh: twenty-ninth round, call 6 (an H200 ×2), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round29/run6.sh
# build-exp/r29l.txz: gemmq and the GPU test programs of the working tree that became the commit
# after b3893f5 (the sums zeroed inside the GEMM where every CTA can be resident: round 22's
# zero-in-kernel.patch made the rule), built with `cmake --build build`, stripped.
# On GPU 0: gpu_test_gpu_kernels, _programs and _det_processes, then the k1 accuracy of the 18
# programs and cublas:default (protocols/k1_wgrad_odd.json, 10 seeds × 20 reruns:
# accuracy-k1-programs.json). On GPU 1 at the same time: gemmq bench --iterations 200
# protocols/k1_wgrad.json (programs.json, programs.md). Everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r29l
progs=""; for p in gemmq:det gemmq:streamk; do progs="$progs -p $p"; done
for n in 64 128 256 320; do for s in 1 2 3 4; do progs="$progs -p gemmq:split:n$n:s$s"; done; done
(
  export CUDA_VISIBLE_DEVICES=0
  for t in kernels programs det_processes; do
    (cd build && step gpu_test_gpu_$t 150 $o/gpu_test_gpu_$t.log tests/gpu_test_gpu_$t)
  done
  pack
  step accuracy 330 $o/accuracy-k1-programs.log build/gemmq accuracy --device 0 $progs \
    -p cublas:default -o $o/accuracy-k1-programs.json protocols/k1_wgrad_odd.json
) &
(
  export CUDA_VISIBLE_DEVICES=1
  step bench 420 $o/programs.log build/gemmq bench --device 0 --iterations 200 \
    -o $o/programs.json --md $o/programs.md protocols/k1_wgrad.json
) &
wait
grep -h "checks," $o/gpu_test_gpu_*.log
tail -n 2 $o/accuracy-k1-programs.log; tail -n 1 $o/programs.log
cat $o/runs.txt
pack
