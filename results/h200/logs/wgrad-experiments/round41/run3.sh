#!/usr/bin/env bash
# run3.sh: forty-first round, call 3: why our GEMM kernel stops with an illegal instruction under
# ncu (calls 1 and 2). Each line: one ncu setting or program, the first GEMM launch profiled.
set -u
D=build-exp/dirty
log=$OUT/run3.log
step() { local lim=$1; shift; echo "# $*" >> $log; timeout -s KILL "$lim" "$@" >> $log 2>&1; echo "rc=$?" >> $log; }
ncu --version >> $log 2>&1
m=gpu__time_duration.sum
step 60 ncu -k regex:gq_wg_kernel --launch-count 1 --metrics $m $D gemmq:split:n256:s4 4096 128 65537 fp32 2
step 60 ncu --replay-mode application -k regex:gq_wg_kernel --launch-count 1 --metrics $m $D gemmq:split:n256:s4 4096 128 65537 fp32 2
step 60 ncu -k regex:gq_wg_kernel --launch-count 1 --metrics $m $D gemmq:split:n256:s4 4096 128 1025 fp32 2
step 60 ncu -k regex:gq_wg_kernel --launch-count 1 --metrics $m $D gemmq:split:n256:s1 4096 128 65537 fp32 2
step 60 ncu -k regex:gq_wg_kernel --launch-count 1 --metrics $m $D gemmq:split:n128:s4 4096 32 65537 fp32 2
step 60 ncu -k regex:gq_wg_kernel --launch-count 1 --metrics $m $D gemmq:det 4096 128 65537 fp32 2
step 60 compute-sanitizer --tool memcheck $D gemmq:split:n256:s4 4096 128 65537 fp32 2
