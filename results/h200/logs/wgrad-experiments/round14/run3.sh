#!/usr/bin/env bash
# run3.sh: fourteenth round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round14/run3.sh   (writes $OUT/all.tgz after every step)
# build-exp/ab3.tgz holds build-exp/gemmq-m (7f660a7, main) and build-exp/gemmq-l with
# build-exp/gpu_test_gpu_{kernels,programs}-l (the lean consumers: descriptors as their low words,
# the warpgroup index broadcast from lane 0, the cluster's barriers mapped once). The lean build's
# GPU tests and FP64 check, then the memory-bound bench of both, three times each, interleaved,
# and both builds' SASS. run4.sh runs these lines with CALL=4 and its own builds: TGZ (the
# archive), BUILDS (the builds benched, main's first), TESTED (the build tested), SASS (the builds
# disassembled).
c=${CALL:-3}
tgz=${TGZ:-build-exp/ab3.tgz} builds=${BUILDS:-"m l"} t=${TESTED:-l} sass=${SASS:-"m l"}
tar xzf $tgz
mkdir -p build && cp build-exp/gemmq-$t build/gemmq
. results/h200/logs/wgrad-experiments/round9/prologue.sh
nvidia-smi --query-gpu=name,serial --format=csv,noheader > /tmp/o/gpu-$c.txt
for x in kernels programs; do
  (cd build && timeout 150 ../build-exp/gpu_test_gpu_$x-$t > /tmp/o/gpu_test_gpu_$x-$t.log 2>&1)
  snap "gpu_test_gpu_$x-$t rc=$?"
done
check $t build-exp/gemmq-$t
snap "check done"
for i in 1 2 3; do for b in $builds; do run ${b}_$i build-exp/gemmq-$b; done; done
snap "ab done"
for b in $sass; do
  cuobjdump -sass build-exp/gemmq-$b 2>&1 | gzip > /tmp/o/sass-$b.txt.gz
done
snap "sass done"
tables "$builds"
