#!/usr/bin/env bash
# run1.sh: eighteenth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round18/run1.sh   (writes $OUT/all.tgz after every step)
# build-exp/head-18.txz holds main's build (build/gemmq and build/tests/gpu_test_*, stripped, with
# the CTest files; the kernels are 12a46b7's). On this H200: every GPU test, each from build/ as
# ctest runs it; `gemmq bench protocols/k1_wgrad.json` (to programs-call1.json and .md: the
# committed programs.json stays the fifteenth round's); the memory-bound bench of main three times
# (../round3/bench.sh's run); the accuracy of all 14 programs and cublas:default on
# protocols/k1_wgrad_odd.json.
# (The GPU tests ran with ../round16/start.sh's gputest_bin written out here.)
c=1
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/head-18.txz
for t in kernels programs det_processes reference timing timing_engine time_fault cupti_late; do
  gputest_bin ./tests/gpu_test_gpu_$t $t
done
{ time build/gemmq bench --device 0 -o /tmp/o/programs-call1.json --md /tmp/o/programs-call1.md protocols/k1_wgrad.json ; } > /tmp/o/programs-call1-bench.log 2>&1
snap "bench rc=$?"
for i in 1 2 3; do run m_$i build/gemmq; done
snap "membound done"
tables "m"
progs=""; for p in gemmq:det gemmq:streamk; do progs="$progs -p $p"; done
for n in 64 128 256; do for s in 1 2 3 4; do progs="$progs -p gemmq:split:n$n:s$s"; done; done
{ time build/gemmq accuracy --device 0 $progs -p cublas:default -o /tmp/o/accuracy-k1-programs-call1.json protocols/k1_wgrad_odd.json ; } > /tmp/o/accuracy-k1-programs-call1.log 2>&1
snap "accuracy rc=$?"
