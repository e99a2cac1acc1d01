#!/usr/bin/env bash
# run1.sh: twentieth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round20/run1.sh   (writes $OUT/all.tgz after every step)
# build-exp/s20-1.txz holds build-exp/s20/gemmq-t and gpu_test_gpu_kernels-t, built from
# 0dbf305 with round20/tr.patch: with GQX_TR=1 in the environment, BF16 out of the split programs
# is rounded by the splits themselves where the grid is resident at once (each consumer warpgroup
# counts its 64 × WN block's adds and, once every split has, rounds its split's share of the
# block's rows), not by the dependent kernel after the GEMM; without it the build is main's.
# The FP64 check with GQX_TR=1 (round4/probe-check.json and round18/probe-65537.json), the
# memory-bound bench of m (no environment) and t (GQX_TR=1) three times each, interleaved, with
# n320:s3 and n320:s4 added to round3/bench.sh's four, then the GPU kernel test with GQX_TR=1.
c=1
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/s20-1.txz
B=build-exp/s20/gemmq-t
CHECK_PROGS="$CHECK_PROGS -p gemmq:split:n320:s2 -p gemmq:split:n320:s3 -p gemmq:split:n320:s4"
check t $B GQX_TR=1
GQX_TR=1 timeout 120 $B accuracy results/h200/logs/wgrad-experiments/round18/probe-65537.json -q $CHECK_PROGS -o /tmp/r/check-t-65537.json > /tmp/r/check-t-65537.log 2>&1
echo "check-t-65537 rc=$?" | tee -a /tmp/r/runs.txt; tail -1 /tmp/r/check-t-65537.log
snap "checks done"
progs="$progs -p gemmq:split:n320:s3 -p gemmq:split:n320:s4"
ab "m:$B t:$B:GQX_TR=1"
tables "m t"
python3 results/h200/logs/wgrad-experiments/round16/delta.py /tmp/o/variants-$c.tsv > /tmp/o/delta-$c.txt 2>&1; cat /tmp/o/delta-$c.txt
snap "delta done"
mkdir -p build; export GQX_TR=1
gputest_bin ../build-exp/s20/gpu_test_gpu_kernels-t kernels-t 150
