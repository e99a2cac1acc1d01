#!/usr/bin/env bash
# prepare4.sh: the builds of call 4, from the repository root at e6cbfb4 (on the development
# machine):
#   bash results/h200/logs/wgrad-experiments/round34/prepare4.sh
# build-exp/r34<v>.txz for v in pw1, pw2, cw2: main with round34/waits.patch (x's copies first,
# as round34/xfirst.patch, and the waits chosen at compile time) built with GQX_PWAIT=1,
# GQX_PWAIT=2 or GQX_CWAIT=2 (the patch's defaults changed in the worktree), in parallel.
set -euo pipefail
top=$(pwd); W=results/h200/logs/wgrad-experiments
pack() { local name=$1 from=$2
  rm -rf build-exp/$name build-exp/$name.txz; mkdir -p build-exp/$name
  cp $from/gemmq $from/tests/gpu_test_gpu_* build-exp/$name/
  strip build-exp/$name/*
  tar cJf build-exp/$name.txz build-exp/$name; }
one() { local v=$1 def=$2 wt=/tmp/r34$1-tree
  rm -rf $wt; git worktree add --detach $wt HEAD >/dev/null
  (cd $wt && git apply $top/$W/round34/waits.patch &&
    sed -i "s/^#define ${def%=*} 0$/#define ${def%=*} ${def#*=}/" kernels/gemm_wgmma.cu &&
    grep -q "^#define ${def%=*} ${def#*=}$" kernels/gemm_wgmma.cu &&
    cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
    cmake --build build -j5 >/dev/null 2>&1)
  pack r34$v $wt/build
  git worktree remove --force $wt; }
git worktree prune
one pw1 GQX_PWAIT=1 & one pw2 GQX_PWAIT=2 & one cw2 GQX_CWAIT=2 & wait
ls -l build-exp/r34pw1.txz build-exp/r34pw2.txz build-exp/r34cw2.txz
