#!/usr/bin/env bash
# prepare.sh: the forty-second round's builds, from the repository root after main's build
# (`. scripts/setup && gq_build`). Each variant is main's gemmq linked with main's libgemmq_core.a
# whose gemm_wgmma.cu.o, gemm_mma.cu.o or kernels.c.o is rebuilt from a patched copy:
#   gq-a, gq-b, gq-c  n384w.patch, -DGQX_N384_SMEM=200/224/224 -DGQX_N384_PIPE=1/1/0
#   gq-sc             selfclean.patch (the knob GQX_SC, read at prepare)
#   gq-d4, gq-d3      depth.patch, -DGQX_SMEM256=160/120 -DGQX_SMEM320=200/150
# and gq is main's gemmq; all stripped and packed as the calls carry them (build-exp/r42*.txz).
set -eu
root=$PWD; tmp=$(mktemp -d); out=build-exp/r42; mkdir -p $out
R=results/h200/logs/wgrad-experiments/round42
INC="-I$root/harness -I$root/reference -I$root/kernels -I$root/build/generated"
NVCC="nvcc -O2 -g -DNDEBUG --generate-code=arch=compute_90a,code=[compute_90a,sm_90a]
  -Xcompiler=-fPIC -Xcompiler=-Wall -Werror=all-warnings"
CC="cc -O2 -g -DNDEBUG -fPIC -Wall -Wextra -Werror -ffp-contract=off -D_GNU_SOURCE -std=c11
  -isystem /usr/local/cuda/include -isystem /usr/include/x86_64-linux-gnu/openblas-pthread"
patched() { # PATCH DIR: kernels/ with PATCH applied, in DIR
  mkdir -p "$2"; cp -r kernels "$2/"; (cd "$2" && patch -s -p1 < "$root/$1"); }
link() { # NAME OBJECT...: main's gemmq with these members of libgemmq_core.a replaced
  local name=$1 d=$tmp/lib-$1; shift; mkdir -p $d; cp build/libgemmq_core.a $d/
  for o in "$@"; do cp "$o" $d/; done
  (cd $d && ar r libgemmq_core.a "${@##*/}")
  sed "s#libgemmq_core.a#$d/libgemmq_core.a#" build/CMakeFiles/gemmq.dir/linkLibs.rsp > $d/link.rsp
  (cd build && g++ -Wl,--export-dynamic @CMakeFiles/gemmq.dir/objects1 -o $root/$out/$name \
    @$d/link.rsp -L/usr/local/cuda/targets/x86_64-linux/lib/stubs \
    -L/usr/local/cuda/targets/x86_64-linux/lib)
  strip $out/$name; }
cp build/gemmq $out/gq; strip $out/gq
patched $R/n384w.patch $tmp/n; k=$tmp/n/kernels
$CC -I$k $INC -c $k/kernels.c -o $tmp/n/kernels.c.o
for v in "a 200 1" "b 224 1" "c 224 0"; do set -- $v
  mkdir -p $tmp/n/$1; $NVCC -DGQX_N384_SMEM=$2 -DGQX_N384_PIPE=$3 -I$k $INC -c $k/gemm_wgmma.cu \
    -o $tmp/n/$1/gemm_wgmma.cu.o
  link gq-$1 $tmp/n/$1/gemm_wgmma.cu.o $tmp/n/kernels.c.o
done
patched $R/selfclean.patch $tmp/s; k=$tmp/s/kernels
$CC -I$k $INC -c $k/kernels.c -o $tmp/s/kernels.c.o
$NVCC -I$k $INC -c $k/gemm_mma.cu -o $tmp/s/gemm_mma.cu.o
link gq-sc $tmp/s/gemm_mma.cu.o $tmp/s/kernels.c.o
patched $R/depth.patch $tmp/d; k=$tmp/d/kernels
for v in "d4 160 200" "d3 120 150"; do set -- $v
  mkdir -p $tmp/d/$1; $NVCC -DGQX_SMEM256=$2 -DGQX_SMEM320=$3 -I$k $INC -c $k/gemm_wgmma.cu \
    -o $tmp/d/$1/gemm_wgmma.cu.o
  link gq-$1 $tmp/d/$1/gemm_wgmma.cu.o
done
tar cJf build-exp/r42.txz -C $out gq gq-a gq-b gq-c    # call 1
tar cJf build-exp/r42b.txz -C $out gq gq-sc            # call 2
tar cJf build-exp/r42c.txz -C $out gq gq-d4 gq-d3      # call 3
tar cJf build-exp/r42d.txz -C $out gq gq-d4            # call 4
rm -rf $tmp
