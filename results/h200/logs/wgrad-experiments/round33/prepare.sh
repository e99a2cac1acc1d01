#!/usr/bin/env bash
# prepare.sh: the builds run1.sh carries, from the repository root (on the development machine):
#   bash results/h200/logs/wgrad-experiments/round33/prepare.sh
# build-exp/r33m.txz: gemmq and the GPU tests of the checkout (main), stripped;
# build-exp/r33x.txz: the same with round33/xhalf.patch applied (knob GQX_XH), built in a
# worktree under /tmp. Carry build-exp/r33m.txz and build-exp/r33x.txz. The tracked tree is
# about 70 MB, over the 64 MiB a device call takes: move results/h200/accuracy-k1-programs.json,
# accuracy-membound-cublaslt-top8.json, k1_wgrad.json and accuracy-k1-cublas.json out of it for
# the call (run1.sh reads none of them) and back after.
set -euo pipefail
top=$(pwd); W=results/h200/logs/wgrad-experiments
pack() { local name=$1 from=$2
  rm -rf build-exp/$name build-exp/$name.txz; mkdir -p build-exp/$name
  cp $from/gemmq $from/tests/gpu_test_gpu_* build-exp/$name/
  strip build-exp/$name/*
  tar cJf build-exp/$name.txz build-exp/$name; }
cmake build >/dev/null && cmake --build build -j"$(nproc)" >/dev/null
pack r33m build
wt=/tmp/r33x-tree; rm -rf $wt; git worktree prune
git worktree add --detach $wt HEAD >/dev/null
(cd $wt && git apply $top/$W/round33/xhalf.patch &&
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null && cmake --build build -j"$(nproc)" >/dev/null)
pack r33x $wt/build
git worktree remove --force $wt
ls -l build-exp/r33m.txz build-exp/r33x.txz
