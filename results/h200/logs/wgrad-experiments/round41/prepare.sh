#!/usr/bin/env bash
# prepare.sh: the builds of the forty-first round, from the repository root after main's build
# (scripts/test, or `. scripts/setup && gq_build`):
#   bash results/h200/logs/wgrad-experiments/round41/prepare.sh
# build-exp/dirty: round41/dirty.cu on main's libgemmq_core.a (calls 1 to 3);
# build-exp/dirty-nocoop: the same with gemm_wgmma.cu under nocoop.patch (GQX_NOCOOP=1 leaves out
#   the cooperative attribute, which ncu cannot launch; calls 4 to 6);
# build-exp/dirty-order: with nocoop.patch and order.patch, -DGQX_ORDER=1 (call 6);
# build-exp/gq (build/gemmq) and build-exp/gq-order (gemmq linked with the order object), packed
#   as build-exp/r41.txz (call 7). dirty.cu's DIRTY_CHECK came with call 6.
set -euo pipefail
W=results/h200/logs/wgrad-experiments/round41
t=$(mktemp -d); mkdir -p $t/kernels build-exp
cp kernels/gemm_wgmma.cu $t/kernels/
(cd $t && patch -s -p0 < "$OLDPWD/$W/nocoop.patch" && cp kernels/gemm_wgmma.cu nocoop.cu &&
  patch -s -p0 < "$OLDPWD/$W/order.patch" && cp kernels/gemm_wgmma.cu order.cu)
obj() { nvcc -O2 -g -DNDEBUG "${@:3}" --generate-code=arch=compute_90a,code=[compute_90a,sm_90a] \
  -Xcompiler=-fPIC -Ikernels -Iharness -Ireference -Ibuild/generated -c "$1" -o "$2"; }
obj $t/nocoop.cu $t/nocoop.o
obj $t/order.cu $t/order.o -DGQX_ORDER=1
for v in dirty: dirty-nocoop:$t/nocoop.o dirty-order:$t/order.o; do
  nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Iharness -Ireference -Ikernels \
    -Ibuild/generated -o build-exp/${v%%:*} $W/dirty.cu ${v#*:} build/libgemmq_core.a \
    -lcublasLt -lcublas -lcupti -lcuda -lopenblas -ljansson -ldl -lpthread
done
cp build/gemmq build-exp/gq
(cd build && g++ -Wl,--export-dynamic CMakeFiles/gemmq.dir/harness/main.c.o $t/order.o \
  -o ../build-exp/gq-order @CMakeFiles/gemmq.dir/linkLibs.rsp \
  -L/usr/local/cuda/targets/x86_64-linux/lib/stubs -L/usr/local/cuda/targets/x86_64-linux/lib)
strip build-exp/dirty build-exp/dirty-nocoop build-exp/dirty-order build-exp/gq build-exp/gq-order
tar cJf build-exp/r41.txz build-exp/gq build-exp/gq-order
rm -rf $t
ls -l build-exp
