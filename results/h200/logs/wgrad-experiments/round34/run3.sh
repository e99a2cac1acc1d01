#!/usr/bin/env bash
# run3.sh: thirty-fourth round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round34/run3.sh
# Builds: round34/prepare.sh (r34m: main, e6cbfb4) and round34/prepare3.sh (r34x: x's copies
# issued before g's; r34p: the same with the knob GQX_XPROMO).
# 1. the FP64 check of r34x (../round4/probe-check.json, ../round18/probe-65537.json, the split
#    programs and gemmq:det) and its gpu_test_gpu_kernels;
# 2. ../round30/probe-miss.json, 200 timed replays: main (m), r34x (x), r34p with GQX_XPROMO=2
#    (p2: x's map with a 128-byte L2 promotion, as cuBLASLt's nvjet kernels' maps have it) and
#    3 (p3: 256 bytes), in turn, three times;
# 3. gemmq bench --iterations 200 protocols/k1_wgrad_membound.json with the 16 split programs,
#    r34x then main.
# Every step is killed (SIGKILL) at its limit.
. results/h200/logs/wgrad-experiments/round29/start.sh r34x r34m r34p
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
progs="-p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
step check-x 60 $o/check-x.log build/gemmq accuracy $W/round4/probe-check.json \
  -q $progs -p gemmq:split:n320:s3 -p gemmq:det -o $o/check-x.json
step check65537-x 60 $o/check65537-x.log build/gemmq accuracy $W/round18/probe-65537.json \
  -q $progs -p gemmq:split:n320:s3 -p gemmq:det -o $o/check65537-x.json
(cd build && step kernels-x 120 $o/gpu_test_gpu_kernels-x.log tests/gpu_test_gpu_kernels)
tail -qn 1 $o/check*.log; grep -h "checks," $o/gpu_test_gpu_kernels-x.log
pack
b() { local n=$1 bin=$2; shift 2
  step $n-$i 60 $o/$n-$i.log env "$@" $bin bench $W/round30/probe-miss.json $progs \
    --iterations 200 -o $o/$n-$i.json --md $o/$n-$i.md; }
for i in 1 2 3; do
  b m build-exp/r34m/gemmq GQX=0
  b x build/gemmq GQX=0
  b p2 build-exp/r34p/gemmq GQX_XPROMO=2
  b p3 build-exp/r34p/gemmq GQX_XPROMO=3
  pack
done
all=""; for n in 64 128 256 320; do for s in 1 2 3 4; do all="$all -p gemmq:split:n$n:s$s"; done; done
step membound-x 200 $o/membound-x.log build/gemmq bench --iterations 200 $all \
  -o $o/membound-x.json --md $o/membound-x.md protocols/k1_wgrad_membound.json
pack
step membound-m 200 $o/membound-m.log build-exp/r34m/gemmq bench --iterations 200 $all \
  -o $o/membound-m.json --md $o/membound-m.md protocols/k1_wgrad_membound.json
tail -qn 1 $o/membound-*.log
cat $o/runs.txt
pack
