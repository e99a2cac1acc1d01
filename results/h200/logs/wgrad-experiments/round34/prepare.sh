#!/usr/bin/env bash
# prepare.sh: the builds of the thirty-fourth round's calls 1 and 2, from the repository root at
# e6cbfb4 (on the development machine):
#   bash results/h200/logs/wgrad-experiments/round34/prepare.sh
# build-exp/r34m.txz: gemmq and the GPU tests of the checkout (main), stripped;
# build-exp/r34n.txz: the same with round34/nomma.patch applied (knob GQX_NOMMA), and
# build-exp/r34k.txz with round34/knobs.patch (GQX_NOMMA and the copy knobs GQX_GH, GQX_XF,
# GQX_IL; call 2 on), each built in a worktree under /tmp; build-exp/capture.so: round34/capture.c, the CUPTI callback library
# preloaded into gemmq. Carry the archives a call's run script names, and build-exp/capture.so.
# The tracked tree is over the 64 MiB a device call takes: move
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
pack r34m build
for v in n:nomma k:knobs; do
  wt=/tmp/r34${v%%:*}-tree; rm -rf $wt; git worktree prune
  git worktree add --detach $wt HEAD >/dev/null
  (cd $wt && git apply $top/$W/round34/${v#*:}.patch &&
    cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null && cmake --build build -j"$(nproc)" >/dev/null)
  pack r34${v%%:*} $wt/build
  git worktree remove --force $wt
done
C=/usr/local/cuda
gcc -O2 -Wall -shared -fPIC -o build-exp/capture.so $W/round34/capture.c -I$C/include \
  -L$C/lib64 -lcupti -L$C/lib64/stubs -lcuda
ls -l build-exp/r34m.txz build-exp/r34n.txz build-exp/r34k.txz build-exp/capture.so
