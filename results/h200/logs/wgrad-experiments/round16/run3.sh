#!/usr/bin/env bash
# run3.sh: sixteenth round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round16/run3.sh   (writes $OUT/all.tgz after every step)
# build-exp/head-16.txz holds main's build (52fd5d3: build/gemmq and build/tests/gpu_test_*,
# stripped, with the CTest files). Every GPU test, each from build/ as ctest runs it, then
# `gemmq bench protocols/k1_wgrad.json` on this H200 (to programs-call3.json and .md: the
# committed programs.json stays the fifteenth round's). Then build-exp/rd-16.txz's
# build-exp/gemmq-rd (round16/read.patch: with BF16 out the TMA adds waited for only until the
# TMA unit has read the ring, the dependent's wait for the grid making them visible) against
# main (m), the memory-bound bench three times each, interleaved.
c=3
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/head-16.txz build-exp/rd-16.txz
for t in kernels programs det_processes reference timing timing_engine time_fault cupti_late; do
  s=$(date +%s)
  (cd build && timeout 300 ./tests/gpu_test_gpu_$t > /tmp/o/gpu_test_gpu_$t.log 2>&1)
  snap "gpu_test_gpu_$t rc=$? $(( $(date +%s) - s )) s"
done
{ time build/gemmq bench --device 0 -o /tmp/o/programs-call3.json --md /tmp/o/programs-call3.md protocols/k1_wgrad.json ; } > /tmp/o/programs-call3-bench.log 2>&1
snap "bench rc=$?"
ab "m:build/gemmq rd:build-exp/gemmq-rd"
tables "m rd"
