#!/usr/bin/env bash
# run1.sh: thirty-third round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round33/run1.sh
# Builds: round33/prepare.sh (r33m: main; r33x: main with round33/xhalf.patch, knob GQX_XH).
# With GQX_XH=1 the pair of CTAs sharing x (GQ_WG_SHARE_X: n256 and n320 at d_out 128) copies
# x as cuBLASLt's nvjet_sm90_tss_320x64_64x4_1x2 kernel does (round9/ncu-5120: five
# UTMALDG.3D.MULTICAST per K-block and CTA, each into rank·4 KiB of a box): rank r copies rows
# [32r, 32r + 32) of every box of x, multicast to both, where main has rank 0 copy the first
# half of the boxes whole (3 of n320's 5) and rank 1 the rest (2).
# 1. the FP64 check with GQX_XH=1 (../round4/probe-check.json, ../round18/probe-65537.json) of
#    the split programs and gemmq:det, and gpu_test_gpu_kernels with it;
# 2. ../round30/probe-miss.json, the split programs beside cuBLASLt's top 8, 200 timed replays:
#    main (m) and GQX_XH=1 (xh), in turn, three times. The pieces give each GEMM kernel's time.
# Every step is killed (SIGKILL) at its limit: a copy that never lands leaves a kernel waiting,
# and gemmq under a plain timeout waits for it (round 32, call 4).
. results/h200/logs/wgrad-experiments/round29/start.sh r33x r33m
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
progs="-p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
step check-xh 120 $o/check-xh.log env GQX_XH=1 build/gemmq accuracy $W/round4/probe-check.json \
  -q $progs -p gemmq:split:n320:s3 -p gemmq:det -o $o/check-xh.json
step check65537-xh 180 $o/check65537-xh.log env GQX_XH=1 build/gemmq accuracy \
  $W/round18/probe-65537.json -q $progs -p gemmq:split:n320:s3 -p gemmq:det -o $o/check65537-xh.json
(cd build && step kernels-xh 180 $o/gpu_test_gpu_kernels-xh.log env GQX_XH=1 tests/gpu_test_gpu_kernels)
tail -qn 1 $o/check*.log; grep -h "checks," $o/gpu_test_gpu_kernels-xh.log
pack
b() { local n=$1 bin=$2; shift 2
  step $n-$i 120 $o/$n-$i.log env "$@" $bin bench $W/round30/probe-miss.json $progs \
    --iterations 200 -o $o/$n-$i.json --md $o/$n-$i.md; }
for i in 1 2 3; do
  b m build-exp/r33m/gemmq GQX=0
  b xh build/gemmq GQX_XH=1
  pack
done
cat $o/runs.txt
pack
