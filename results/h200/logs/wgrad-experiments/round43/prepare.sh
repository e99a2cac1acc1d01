#!/usr/bin/env bash
# prepare.sh: the forty-third round's builds, from the repository root on main with order.patch
# applied and built (`. scripts/setup && gq_build`): gq-o (gemmq) and kt-o (gpu_test_gpu_kernels)
# of the patched tree, then gq, main's gemmq (the patch stashed, rebuilt); stripped and packed as
# the calls carry them (build-exp/r43.txz).
set -eu
R=results/h200/logs/wgrad-experiments/round43
mkdir -p build-exp/r43
cp build/gemmq build-exp/r43/gq-o; cp build/tests/gpu_test_gpu_kernels build-exp/r43/kt-o
git stash -q; cmake --build build -j "$(nproc)"; cp build/gemmq build-exp/r43/gq; git stash pop -q
strip build-exp/r43/gq build-exp/r43/gq-o build-exp/r43/kt-o
tar cJf build-exp/r43.txz -C build-exp/r43 gq gq-o kt-o
