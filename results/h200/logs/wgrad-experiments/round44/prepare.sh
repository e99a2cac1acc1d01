#!/usr/bin/env bash
# prepare.sh: the build of the forty-fourth round's calls, from the repository root at main
# (076f11a's kernels, the clusters in cuBLASLt's launch order): build-exp/r44.txz, gemmq and the
# GPU test programs, stripped.
set -euo pipefail
rm -rf build-exp/r44 build-exp/r44.txz; mkdir -p build-exp/r44
cmake build >/dev/null && cmake --build build -j"$(nproc)" >/dev/null 2>&1
cp build/gemmq build/tests/gpu_test_gpu_* build-exp/r44/
strip build-exp/r44/*
tar cJf build-exp/r44.txz build-exp/r44
ls -l build-exp/r44.txz
