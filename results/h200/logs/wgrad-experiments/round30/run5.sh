#!/usr/bin/env bash
# run5.sh: thirtieth round, call 5 (an H200 ×2), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round30/run5.sh
# build-exp/r30l.txz: gemmq and the GPU test programs of 9b2e530's tree (split 0's producer
# zeroes the sums by TMA stores), built with `cmake --build build`, stripped.
# On GPU 0: gpu_test_gpu_kernels, _programs and _det_processes, then the k1 accuracy of the 18
# programs and cublas:default (protocols/k1_wgrad_odd.json, 10 seeds × 20 reruns:
# accuracy-k1-programs.json). On GPU 1 at the same time: gemmq bench --iterations 200
# protocols/k1_wgrad.json (programs.json, programs.md). Everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r30l
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
