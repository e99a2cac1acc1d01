#!/usr/bin/env bash
# run1.sh: twenty-ninth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round29/run1.sh
# build-exp/r29.txz holds build-exp/r29: main's gemmq and GPU test programs (d503f1c, kernels of e876441), built with
# `bash scripts/test` and stripped; they are put where ctest would run them (build/, build/tests/).
# 1. the GPU's identity, clocks and temperature (gpu.txt);
# 2. every GPU test program, from build/ as ctest runs it (gpu_test_gpu_NAME.log);
# 3. the memory-bound bench twice: protocols/k1_wgrad_membound.json with the four split programs
#    that are ever the best there and the 64×320 ones, cuBLASLt's top 8 beside them, 200 timed
#    replays (mb-N.json, mb-N.md, mb-N.log).
# Every step's exit status and seconds go to runs.txt; everything is packed into $OUT/all.tgz
# (the device returns only a few files a call).
. results/h200/logs/wgrad-experiments/round29/start.sh r29
for t in kernels programs det_processes reference timing timing_engine time_fault cupti_late bench; do
  (cd build && step gpu_test_gpu_$t 200 $o/gpu_test_gpu_$t.log tests/gpu_test_gpu_$t)
done
progs="-p gemmq:split:n128:s3 -p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4"
progs="$progs -p gemmq:split:n320:s3 -p gemmq:split:n320:s4"
for i in 1 2; do
  step mb-$i 200 $o/mb-$i.log build/gemmq bench protocols/k1_wgrad_membound.json $progs \
    --iterations 200 -o $o/mb-$i.json --md $o/mb-$i.md
done
nvidia-smi $q | tail -n +2 >> $o/gpu.txt
grep -h "at least as fast at" $o/mb-*.md | cut -c1-400
cat $o/runs.txt
pack
