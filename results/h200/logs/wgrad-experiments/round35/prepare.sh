#!/usr/bin/env bash
# prepare.sh: the builds of the thirty-fifth round's call 1, from the repository root at main
# (on the development machine, before the large results files are moved out):
#   bash results/h200/logs/wgrad-experiments/round35/prepare.sh
# build-exp/r35m.txz: gemmq and the GPU tests of the checkout (main), stripped;
# build-exp/r35e.txz: the same with round34/elect.patch applied (the producer's loop on its whole
# warp, each stage's copies issued by the lane elect.sync chooses), built in a worktree under /tmp.
# Carry both archives. The tracked tree is over the 64 MiB a device call takes: move
# results/h200/accuracy-k1-programs.json, accuracy-membound-cublaslt-top8.json, k1_wgrad.json
# and accuracy-k1-cublas.json out of it for the call and back after.
set -euo pipefail
top=$(pwd); W=results/h200/logs/wgrad-experiments
pack() { local name=$1 from=$2
  rm -rf build-exp/$name build-exp/$name.txz; mkdir -p build-exp/$name
  cp $from/gemmq $from/tests/gpu_test_gpu_* build-exp/$name/
  strip build-exp/$name/*
  tar cJf build-exp/$name.txz build-exp/$name; }
cmake build >/dev/null && cmake --build build -j"$(nproc)" >/dev/null
pack r35m build
wt=/tmp/r35e-tree; rm -rf $wt; git worktree prune
git worktree add --detach $wt HEAD >/dev/null
(cd $wt && git apply $top/$W/round34/elect.patch &&
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null && cmake --build build -j"$(nproc)" >/dev/null)
pack r35e $wt/build
git worktree remove --force $wt
ls -l build-exp/r35m.txz build-exp/r35e.txz
