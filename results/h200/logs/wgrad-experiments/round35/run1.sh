#!/usr/bin/env bash
# run1.sh: thirty-fifth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round35/run1.sh
# Builds: `round35/prepare.sh r35m r35e:round34/elect.patch` (r35m: main; r35e: main with
# round34/elect.patch).
# 1. the FP64 check of r35e (../round4/probe-check.json, ../round18/probe-65537.json, the split
#    programs and gemmq:det) and its gpu_test_gpu_kernels;
# 2. ../round30/probe-miss.json, 200 timed replays: main (m) and r35e (e) in turn, three times;
# 3. gemmq bench --iterations 200 protocols/k1_wgrad_membound.json with the 16 split programs,
#    r35e then main.
# Every step is killed (SIGKILL) at its limit; everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r35e r35m
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
progs="-p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
step check-e 60 $o/check-e.log build/gemmq accuracy $W/round4/probe-check.json \
  -q $progs -p gemmq:split:n320:s3 -p gemmq:det -o $o/check-e.json
step check65537-e 60 $o/check65537-e.log build/gemmq accuracy $W/round18/probe-65537.json \
  -q $progs -p gemmq:split:n320:s3 -p gemmq:det -o $o/check65537-e.json
(cd build && step kernels-e 120 $o/gpu_test_gpu_kernels-e.log tests/gpu_test_gpu_kernels)
tail -qn 1 $o/check*.log; grep -h "checks," $o/gpu_test_gpu_kernels-e.log
pack
b() { local n=$1 bin=$2
  step $n-$i 60 $o/$n-$i.log $bin bench $W/round30/probe-miss.json $progs \
    --iterations 200 -o $o/$n-$i.json --md $o/$n-$i.md; }
for i in 1 2 3; do
  b m build-exp/r35m/gemmq
  b e build/gemmq
  pack
done
all=""; for n in 64 128 256 320; do for s in 1 2 3 4; do all="$all -p gemmq:split:n$n:s$s"; done; done
step membound-e 200 $o/membound-e.log build/gemmq bench --iterations 200 $all \
  -o $o/membound-e.json --md $o/membound-e.md protocols/k1_wgrad_membound.json
pack
step membound-m 200 $o/membound-m.log build-exp/r35m/gemmq bench --iterations 200 $all \
  -o $o/membound-m.json --md $o/membound-m.md protocols/k1_wgrad_membound.json
tail -qn 1 $o/membound-*.log
cat $o/runs.txt
pack
