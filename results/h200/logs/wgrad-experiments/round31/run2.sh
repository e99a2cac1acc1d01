#!/usr/bin/env bash
# run2.sh: thirty-first round, call 2 (an H200 ×2), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round31/run2.sh
# build-exp/r31b.txz: gemmq and the GPU test programs of fd67fa0 (cal:nan's kernel on every
# launch; the k1_wgrad candidates of 44beafa's bench), built with `cmake --build build`, stripped.
# Both GPUs at once: gemmq qualify protocols/k1_wgrad.json --device 0 --shard I/2 (I = 0 on GPU 0,
# 1 on GPU 1), to be merged here into results/h200/k1_wgrad.json. Then on GPU 0:
# gpu_test_gpu_timing (its planted-NaN check) and the calibration cases nan and twin again.
# Everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r31b
for i in 0 1; do
  (
    export CUDA_VISIBLE_DEVICES=$i
    step shard$i 540 $o/k1-s$i.log build/gemmq qualify protocols/k1_wgrad.json --device 0 \
      --shard $i/2 -o $o/k1-s$i.json
  ) &
done
wait
pack
export CUDA_VISIBLE_DEVICES=0
(cd build && step gpu_test_gpu_timing 30 $o/gpu_test_gpu_timing.log tests/gpu_test_gpu_timing)
mkdir -p $o/cal
for n in nan twin; do
  step cal-$n 30 $o/cal/$n.log build/gemmq qualify protocols/calibration/$n.json --device 0 \
    -o $o/cal/$n.json
done
tail -qn 1 $o/k1-s*.log $o/cal/*.log
grep -h "checks,\|cal:nan" $o/gpu_test_gpu_timing.log
cat $o/runs.txt
pack
