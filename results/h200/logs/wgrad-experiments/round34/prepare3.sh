#!/usr/bin/env bash
# prepare3.sh: the builds of call 3 on, from the repository root (on the development machine),
# at the commit before x's copies moved first (e6cbfb4) or at that commit itself:
#   bash results/h200/logs/wgrad-experiments/round34/prepare3.sh
# build-exp/r34x.txz: main with round34/xfirst.patch (x's copies issued before g's);
# build-exp/r34p.txz: main with round34/xfirst-promo.patch (the same, and the knob GQX_XPROMO: the
# L2 promotion of x's map where x streams, CUtensorMapL2promotion's value; none without it).
# Each is built in a worktree under /tmp from HEAD with its patch applied, if it is not applied
# already. Carry the archives a call's run script names.
set -euo pipefail
top=$(pwd); W=results/h200/logs/wgrad-experiments
pack() { local name=$1 from=$2
  rm -rf build-exp/$name build-exp/$name.txz; mkdir -p build-exp/$name
  cp $from/gemmq $from/tests/gpu_test_gpu_* build-exp/$name/
  strip build-exp/$name/*
  tar cJf build-exp/$name.txz build-exp/$name; }
for v in x:xfirst p:xfirst-promo; do
  wt=/tmp/r34${v%%:*}-tree; rm -rf $wt; git worktree prune
  git worktree add --detach $wt HEAD >/dev/null
  (cd $wt && { git apply --check $top/$W/round34/xfirst.patch 2>/dev/null ||
               git apply -R $top/$W/round34/xfirst.patch; } &&
    git apply $top/$W/round34/${v#*:}.patch &&
    cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null && cmake --build build -j"$(nproc)" >/dev/null)
  pack r34${v%%:*} $wt/build
  git worktree remove --force $wt
done
ls -l build-exp/r34x.txz build-exp/r34p.txz
