#!/usr/bin/env bash
# run2.sh: twenty-third round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round23/run2.sh   (writes $OUT/all.tgz after every step)
# build-exp/head-23.txz holds 00fa494's build/gemmq, GPU tests and plugins, stripped (the kernels
# of e876441; the bench's progress line, --sm-clock and its refactor since). Every GPU test, as
# ctest runs them, each into /tmp/o/gpu_test_gpu_NAME.log.
c=2
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/head-23.txz
for t in kernels programs det_processes reference timing timing_engine time_fault cupti_late; do
  gputest_bin ./tests/gpu_test_gpu_$t $t 200
done
grep -h "checks" /tmp/o/gpu_test_gpu_*.log
snap "all done"
