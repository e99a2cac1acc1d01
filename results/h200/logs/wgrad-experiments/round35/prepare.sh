#!/usr/bin/env bash
# prepare.sh MAIN [NAME:PATCH]...: the builds a call carries, from the repository root at main
# (on the development machine, before the large results files are moved out). Round 35, call 1:
#   bash results/h200/logs/wgrad-experiments/round35/prepare.sh r35m r35e:round34/elect.patch
# build-exp/MAIN.txz: gemmq and the GPU tests of the checkout, stripped; build-exp/NAME.txz for
# each NAME:PATCH: the same with PATCH (a path under results/h200/logs/wgrad-experiments/)
# applied, built in a worktree under /tmp. (Rounds 33 and 34 wrote these steps out in their own
# prepare scripts; later rounds call this one with their names and patches.) Carry the archives.
# The tracked tree is over the 64 MiB a device call takes: move
# results/h200/accuracy-k1-programs.json, accuracy-membound-cublaslt-top8.json, k1_wgrad.json
# and accuracy-k1-cublas.json out of it for the call and back after.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 MAIN [NAME:PATCH]... (from the repository root)" >&2; exit 2; fi
top=$(pwd); W=results/h200/logs/wgrad-experiments
for v in "${@:2}"; do
  [ -f "$W/${v#*:}" ] || { echo "$0: no patch $W/${v#*:} (from $v)" >&2; exit 2; }; done
pack() { local name=$1 from=$2
  rm -rf build-exp/$name build-exp/$name.txz; mkdir -p build-exp/$name
  cp $from/gemmq $from/tests/gpu_test_gpu_* build-exp/$name/
  strip build-exp/$name/*
  tar cJf build-exp/$name.txz build-exp/$name; }
cmake build >/dev/null && cmake --build build -j"$(nproc)" >/dev/null
pack "$1" build
made=(build-exp/$1.txz)
for v in "${@:2}"; do
  name=${v%%:*} patch=$top/$W/${v#*:}
  wt=/tmp/$name-tree; rm -rf $wt; git worktree prune
  git worktree add --detach $wt HEAD >/dev/null
  (cd $wt && git apply "$patch" &&
    cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null && cmake --build build -j"$(nproc)" >/dev/null)
  pack $name $wt/build
  git worktree remove --force $wt
  made+=(build-exp/$name.txz)
done
ls -l "${made[@]}"
