#!/usr/bin/env bash
# run6.sh: eighth round, call 6 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round8/run6.sh   (writes $OUT/all.tgz after every step)
# build/gemmq is 88d90ea (the shared copies only where the grid keeps 7/8 of the SMs busy);
# build-exp/gemmq-cc71600 the kernel before it (sharing at every grid), build-exp/gemmq-main
# fcebf2f (no sharing); build-exp/gpu_test_gpu_{kernels,programs} of 88d90ea, run from build/.
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
mkdir -p /tmp/o; ln -sfn /tmp/r /tmp/o/r
snap() { echo "$1" | tee -a /tmp/o/runs.txt; tar czhf $OUT/all.tgz -C /tmp o; }
gputest() { (cd build && timeout ${2:-150} ../build-exp/gpu_test_gpu_$1 > /tmp/o/gpu_test_gpu_$1.log 2>&1); snap "gpu_test_gpu_$1 rc=$?"; }
{ time build/gemmq bench --device 0 -o /tmp/o/programs.json --md /tmp/o/programs.md protocols/k1_wgrad.json ; } > /tmp/o/programs-bench.log 2>&1
snap "bench rc=$?"
run m_1 build-exp/gemmq-main; run s_1 build-exp/gemmq-cc71600; run f_1 build/gemmq
run m_2 build-exp/gemmq-main; run s_2 build-exp/gemmq-cc71600; run f_2 build/gemmq
snap "ab done"
gputest kernels; gputest programs 100
