#!/usr/bin/env bash
# run1.sh: twenty-fifth round, call 1 (an H200), from the repository root:
#   C=1 bash results/h200/logs/wgrad-experiments/round25/run1.sh   (writes $OUT/all.tgz)
# build-exp/h25a.txz: build-exp/h25a/gemmq and gpu_test_gpu_kernels of slices.patch (on 4105f22).
# Knobs (environment): GQX_SL bits 1 (the split programs' BF16 out through slices: each split
# stores its FP32 sums in ws[z], no memset, no adds; the slices summed and rounded by the reduce
# kernel as the GEMM's programmatic dependent), 2 (the same for FP32 out), 4 (the slices, and
# gemmq:det's, stored by the TMA unit instead of float2 stores), 8 (or any bit: gemmq:det's reduce a
# programmatic dependent too); GQX_RU=1 the reduce kernel's loads of the first four slices issued
# together. The FP64 check and the GPU kernel test with s3 and s7; then probe-128.json with
# n256:s4, n320:s4 and gemmq:det, 200 timed replays, interleaved, twice on each GPU.
c=${C:?give the call number in C}
R=h25a
. results/h200/logs/wgrad-experiments/round25/start.sh
checks "s3:GQX_SL=3,GQX_RU=1 s7:GQX_SL=7,GQX_RU=1"
gtests "s3:GQX_SL=3,GQX_RU=1 s7:GQX_SL=7,GQX_RU=1"
variants "main ru:GQX_RU=1 pd:GQX_SL=8,GQX_RU=1 s1:GQX_SL=1,GQX_RU=1 s5:GQX_SL=5,GQX_RU=1 s3:GQX_SL=3,GQX_RU=1 s7:GQX_SL=7,GQX_RU=1"
