#!/usr/bin/env bash
# run3.sh: seventh round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round7/run3.sh   (writes $OUT/r.tgz and runs.txt)
# Call 2 traced call 1's slowdown to the producer's loop alone (a branch never taken there cost
# 6-9 % at d_out 128). build-exp/gemmq-lean (a08b4df with lean.patch) keeps the loops' shared
# addresses, stage and parity as running values and the consumers' descriptors as a base plus
# the stage's offset, so each K-block issues little besides the wait, the copies or the
# multiplies, and the release. build/gemmq is main (a08b4df).
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
. results/h200/logs/wgrad-experiments/round4/check.sh
check lean build-exp/gemmq-lean
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
for rep in 1 2 3; do
run a_$rep build/gemmq
run lean_$rep build-exp/gemmq-lean
done
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
(cd build && timeout 150 ../build-exp/gpu_test_gpu_kernels-lean > /tmp/r/gpu_test_gpu_kernels-lean.log 2>&1)
echo "gpu_test_gpu_kernels-lean rc=$?" | tee -a /tmp/r/runs.txt
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
