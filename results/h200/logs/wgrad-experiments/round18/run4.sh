#!/usr/bin/env bash
# run4.sh: eighteenth round, call 4 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round18/run4.sh   (writes $OUT/all.tgz after every step)
# build-exp/s18-4.txz holds build-exp/s18/gemmq-m (main, fed7b69) and, with their
# gpu_test_gpu_kernels, build-exp/s18/gemmq-b0 and -b1: round18/b64.patch (n160.patch, whose
# swizzle now comes from the caller, and the knob GQX_B64) built with GQX_B64 0 and 1. With 1 the
# tiles of WN = 128 (128×128 and 64×256) copy x in 64-byte swizzled boxes of 32 columns instead
# of 128-byte swizzled boxes of 64, and multiply it with that layout: the cost of 64-byte rows of
# x, apart from n160's other differences. The GPU kernel test of b0 and b1; the FP64 check of
# b0's n160 programs and of b1's four split programs of round3/bench.sh (round4/probe-check.json
# and probe-65537.json); then the memory-bound bench of m, b0 and b1, three times each,
# interleaved.
# (The GPU tests ran with ../round16/start.sh's gputest_bin written out here; their notes in
# runs-4.txt have no seconds.)
c=4
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/s18-4.txz
mkdir -p build && cp build-exp/s18/gemmq-b0 build/gemmq
for b in b0 b1; do gputest_bin ../build-exp/s18/gpu_test_gpu_kernels-$b kernels-$b 120; done
for b in b0 b1; do
  if [ $b = b0 ]; then CHECK_PROGS="-p gemmq:split:n160:s1 -p gemmq:split:n160:s2 -p gemmq:split:n160:s3 -p gemmq:split:n160:s4"
  else CHECK_PROGS="$progs"; fi
  check $b build-exp/s18/gemmq-$b
  timeout 120 build-exp/s18/gemmq-$b accuracy results/h200/logs/wgrad-experiments/round18/probe-65537.json -q $CHECK_PROGS -o /tmp/r/check-$b-65537.json > /tmp/r/check-$b-65537.log 2>&1
  echo "check-$b-65537 rc=$?" | tee -a /tmp/r/runs.txt; tail -1 /tmp/r/check-$b-65537.log
done
snap "checks done"
for i in 1 2 3; do for b in m b0 b1; do run ${b}_$i build-exp/s18/gemmq-$b; done; done
snap "ab done"
tables "m b0 b1"
