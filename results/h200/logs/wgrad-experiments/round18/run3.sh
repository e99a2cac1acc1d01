#!/usr/bin/env bash
# run3.sh: eighteenth round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round18/run3.sh   (writes $OUT/all.tgz after every step)
# build-exp/s18-3.txz holds build-exp/s18/gemmq-m (main, fed7b69) and build-exp/s18/gemmq-n with
# its gpu_test_gpu_{kernels,programs}-n (round18/n160.patch: gemmq:split:n160:s<1..4>, a 128×160
# tile at d_out 128 (64×160 below), x in 64-byte-swizzled boxes of 32 columns, m64n160k16; at
# 5120x128 its 32 N tiles × 4 splits make 128 CTAs, where the others make 120 or 160). The FP64
# check of n160:s1..s4 (round4/probe-check.json, T 1025 and 16173, and probe-65537.json), n's GPU
# kernel and program tests, then the memory-bound bench of m (the four split programs of
# round3/bench.sh) and n (the same and n160:s3, n160:s4), three times each, interleaved.
# The build that ran chose a map's swizzle by its box's width, which also gave A's map at d_out 32
# (boxes of 32 columns) the 64-byte swizzle: every case at d_out 32 failed. n160.patch as kept
# passes the swizzle from the caller; with it every case passed in call 4 (run4.sh's b0).
# (The GPU tests ran with ../round16/start.sh's gputest_bin written out here; their notes in
# runs-3.txt have no seconds.)
# (The check at T = 65537, noted as check-65537 in runs-3.txt, and the interleaved bench were
# written out here when this ran; they now use ../round4/check.sh's check65537 and
# ../round16/start.sh's ab_extra.)
c=3
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/s18-3.txz
CHECK_PROGS="-p gemmq:split:n160:s1 -p gemmq:split:n160:s2 -p gemmq:split:n160:s3 -p gemmq:split:n160:s4"
check n build-exp/s18/gemmq-n
check65537 n build-exp/s18/gemmq-n
snap "checks done"
mkdir -p build && cp build-exp/s18/gemmq-n build/gemmq
for x in kernels programs; do gputest_bin ../build-exp/s18/gpu_test_gpu_$x-n $x-n 120; done
ab_extra 3 "-p gemmq:split:n160:s3 -p gemmq:split:n160:s4" m:build-exp/s18/gemmq-m n:build-exp/s18/gemmq-n
tables "m n"
