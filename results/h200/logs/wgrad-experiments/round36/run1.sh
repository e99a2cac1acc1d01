#!/usr/bin/env bash
# run1.sh: thirty-sixth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round36/run1.sh
# Builds: `round35/prepare.sh r36m r36k:round36/kalt.patch r36f:round36/fewer.patch` (r36m:
# main; r36k: the 64×256 and 64×320 tiles' consumer warpgroups on alternate K-blocks, sums in
# shared memory, rings of 4 and 3 stages; r36f: main's consumers with those rings).
# 1. the FP64 checks of r36k and r36f (../round4/probe-check.json, ../round18/probe-65537.json,
#    the split programs and gemmq:det) and r36k's gpu_test_gpu_kernels;
# 2. ../round30/probe-miss.json, 200 timed replays: main (m), r36k (k), r36f (f) in turn, four
#    times;
# 3. gemmq bench --iterations 200 protocols/k1_wgrad_membound.json with the 16 split programs,
#    r36k, then main.
# Every step is killed (SIGKILL) at its limit; everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r36k r36m r36f
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
progs="-p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
for v in k:build/gemmq f:build-exp/r36f/gemmq; do n=${v%%:*} bin=${v#*:}
  step check-$n 60 $o/check-$n.log $bin accuracy $W/round4/probe-check.json \
    -q $progs -p gemmq:split:n320:s3 -p gemmq:det -o $o/check-$n.json
  step check65537-$n 60 $o/check65537-$n.log $bin accuracy $W/round18/probe-65537.json \
    -q $progs -p gemmq:split:n320:s3 -p gemmq:det -o $o/check65537-$n.json
done
(cd build && step kernels-k 120 $o/gpu_test_gpu_kernels-k.log tests/gpu_test_gpu_kernels)
tail -qn 1 $o/check*.log; grep -h "checks," $o/gpu_test_gpu_kernels-k.log
pack
b() { local n=$1 bin=$2
  step $n-$i 60 $o/$n-$i.log $bin bench $W/round30/probe-miss.json $progs \
    --iterations 200 -o $o/$n-$i.json --md $o/$n-$i.md; }
for i in 1 2 3 4; do
  b m build-exp/r36m/gemmq
  b k build/gemmq
  b f build-exp/r36f/gemmq
  pack
done
all=""; for n in 64 128 256 320; do for s in 1 2 3 4; do all="$all -p gemmq:split:n$n:s$s"; done; done
step membound-k 200 $o/membound-k.log build/gemmq bench --iterations 200 $all \
  -o $o/membound-k.json --md $o/membound-k.md protocols/k1_wgrad_membound.json
pack
step membound-m 200 $o/membound-m.log build-exp/r36m/gemmq bench --iterations 200 $all \
  -o $o/membound-m.json --md $o/membound-m.md protocols/k1_wgrad_membound.json
tail -qn 1 $o/membound-*.log
cat $o/runs.txt
pack
