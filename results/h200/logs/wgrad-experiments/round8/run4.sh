#!/usr/bin/env bash
# run4.sh: the landed kernel (cc71600) measured (eighth round, call 4), from the repository root
# on one H200: bash results/h200/logs/wgrad-experiments/round8/run4.sh (writes $OUT/all.tgz
# after every step: /tmp/o, with /tmp/r of ../round3/bench.sh inside it).
# build/gemmq from cc71600; build-exp/gemmq-main from fcebf2f (the kernel before); build-exp/
# gpu_test_gpu_{kernels,det_processes,programs} the GPU tests of cc71600 that run its kernels,
# run from build/ as ctest runs them.
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
mkdir -p /tmp/o; ln -sfn /tmp/r /tmp/o/r
snap() { echo "$1" | tee -a /tmp/o/runs.txt; tar czhf $OUT/all.tgz -C /tmp o; }
gputest() { (cd build && timeout ${2:-150} ../build-exp/gpu_test_gpu_$1 > /tmp/o/gpu_test_gpu_$1.log 2>&1); snap "gpu_test_gpu_$1 rc=$?"; }
gputest kernels; gputest det_processes
{ time build/gemmq bench --device 0 -o /tmp/o/programs.json --md /tmp/o/programs.md protocols/k1_wgrad.json ; } > /tmp/o/programs-bench.log 2>&1
snap "bench rc=$?"
run m_1 build-exp/gemmq-main; run n_1 build/gemmq; run m_2 build-exp/gemmq-main; run n_2 build/gemmq
snap "ab done"
progs=""; for p in gemmq:det gemmq:streamk; do progs="$progs -p $p"; done
for n in 64 128 256; do for s in 1 2 3 4; do progs="$progs -p gemmq:split:n$n:s$s"; done; done
{ time build/gemmq accuracy --device 0 $progs -p cublas:default -o /tmp/o/accuracy-k1-programs.json protocols/k1_wgrad_odd.json ; } > /tmp/o/accuracy-k1-programs.log 2>&1
snap "accuracy rc=$?"
gputest programs 100
