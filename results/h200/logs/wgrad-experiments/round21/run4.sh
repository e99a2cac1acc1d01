#!/usr/bin/env bash
# run4.sh: twenty-first round, call 4 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round21/run4.sh   (writes $OUT/all.tgz after every step)
# build-exp/bal.txz holds the build of 230ae5c with balanced.patch (split z takes K-blocks
# [z·kblocks/S, (z+1)·kblocks/S) instead of [z·ceil(kblocks/S), ...)): build/gemmq and two GPU
# tests, and build-exp/bal/gemmq (stripped); build-exp/r21b.txz main's kernels (31a5d70).
# 1. gpu_test_gpu_kernels and gpu_test_gpu_det_processes of the patched build (from build/);
# 2. the memory-bound bench of main (m) and the patch (b), six split programs, 20 timed
#    replays, three times each, interleaved; then 200 timed replays, b then m.
c=4
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/bal.txz build-exp/r21b.txz
for t in kernels det_processes; do gputest_bin ./tests/gpu_test_gpu_$t $t 60; done
grep "^# summary\|^# speed goal\|^# total\|checks" /tmp/o/gpu_test_gpu_kernels.log | tail -4
RUN_TIMEOUT=30
progs="$progs -p gemmq:split:n320:s3 -p gemmq:split:n320:s4"
ab "m:build-exp/r21b/gemmq b:build-exp/bal/gemmq"
tables "m b"
for v in b:build-exp/bal/gemmq m:build-exp/r21b/gemmq; do
  IFS=: read -r t bin <<< "$v"; s=$(date +%s)
  timeout 75 $bin bench $P $progs --iterations 200 -q -o /tmp/r/${t}200.json --md /tmp/r/${t}200.md > /tmp/r/${t}200.log 2>&1
  snap "${t}200 rc=$? $(( $(date +%s) - s )) s"
done
