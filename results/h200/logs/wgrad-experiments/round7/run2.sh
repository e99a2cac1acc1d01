#!/usr/bin/env bash
# run2.sh: seventh round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round7/run2.sh   (writes $OUT/r.tgz and runs.txt)
# Call 1 found the knobs' build 6-10 % slower at d_out 128 with every knob off. Which half of
# knobs.patch costs that: build-exp/gemmq-v1 has only the producer's rotation (GQX_ROT),
# build-exp/gemmq-v2 only the ticket epilogue (GQX_TICKET); build-exp/gemmq-r7 both (call 1);
# build/gemmq main. The wgmma objects of the four (build-exp/wg-{main,v1,v2,xp}.o, nvcc as CMake
# compiles kernels/gemm_wgmma.cu) are disassembled for the 128x128 kernel.
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
for v in main v1 v2 xp; do
  /usr/local/cuda/bin/cuobjdump -sass build-exp/wg-$v.o > /tmp/r/sass-$v.txt 2>&1
done
for rep in 1 2; do
run a_$rep build/gemmq
run x0_$rep build-exp/gemmq-r7
run v1_$rep build-exp/gemmq-v1
run v2_$rep build-exp/gemmq-v2
done
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
