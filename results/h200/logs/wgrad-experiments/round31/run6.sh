#!/usr/bin/env bash
# run6.sh: thirty-first round, call 6 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round31/run6.sh
# build-exp/r31e.txz: gemmq and gpu_test_gpu_timing of the commit that builds the test's problem
# with gq_program_problem, built with `cmake --build build`, stripped. Runs that test.
. results/h200/logs/wgrad-experiments/round29/start.sh r31e
(cd build && step gpu_test_gpu_timing 60 $o/gpu_test_gpu_timing.log tests/gpu_test_gpu_timing)
grep -h "checks,\|cal:nan\|gemmq:det" $o/gpu_test_gpu_timing.log
cat $o/runs.txt
pack
