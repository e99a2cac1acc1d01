#!/usr/bin/env bash
# prepare5.sh: the build of call 5, from the repository root at 1343065 (x's copies first):
#   bash results/h200/logs/wgrad-experiments/round34/prepare5.sh
# build-exp/r34l.txz: gemmq and the GPU tests of the checkout, stripped.
set -euo pipefail
rm -rf build-exp/r34l build-exp/r34l.txz; mkdir -p build-exp/r34l
cmake build >/dev/null && cmake --build build -j"$(nproc)" >/dev/null 2>&1
cp build/gemmq build/tests/gpu_test_gpu_* build-exp/r34l/
strip build-exp/r34l/*
tar cJf build-exp/r34l.txz build-exp/r34l
ls -l build-exp/r34l.txz
