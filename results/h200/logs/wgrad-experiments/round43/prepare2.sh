#!/usr/bin/env bash
# prepare2.sh: the build of calls 2 and 3, from the repository root at 076f11a (the clusters in
# cuBLASLt's launch order): build-exp/r43l.txz, gemmq and the GPU test programs, stripped.
set -euo pipefail
rm -rf build-exp/r43l build-exp/r43l.txz; mkdir -p build-exp/r43l
cmake build >/dev/null && cmake --build build -j"$(nproc)" >/dev/null 2>&1
cp build/gemmq build/tests/gpu_test_gpu_* build-exp/r43l/
strip build-exp/r43l/*
tar cJf build-exp/r43l.txz build-exp/r43l
ls -l build-exp/r43l.txz
