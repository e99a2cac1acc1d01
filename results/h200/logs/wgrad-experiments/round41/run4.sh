#!/usr/bin/env bash
# run4.sh: forty-first round, call 4 (the H200 of calls 1 to 3), from the repository root, with (both from prepare.sh)
# build-exp/dirty and build-exp/dirty-nocoop carried. ncu cannot launch our kernels whose grids are
# launched cooperatively in clusters (call 3: LaunchFailed; compute-sanitizer finds no error in
# them), so dirty-nocoop links gemm_wgmma.cu with round41/nocoop.patch, whose GQX_NOCOOP=1 leaves
# the cooperative attribute out (the grid of 128 CTAs is resident at once anyway). First both
# launches timed with events (ours: cooperative or not), then call 2's ncu counters of our GEMM
# (not cooperative) and cuBLASLt's fastest, FP32 out, three times each, alternating; ours with
# BF16 out once. Everything lands in $OUT/r4.tgz.
set -u
mkdir -p /tmp/r4; o=/tmp/r4; log=$o/run4.log
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > $o/gpu.txt 2>&1
step() { local lim=$1; shift; echo "# $*" >> $log; timeout -s KILL "$lim" "$@"; echo "rc=$?" >> $log; }
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,launch__grid_size
M=$M,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_tex_lookup_hit.sum
M=$M,lts__t_sectors_srcunit_ltcfabric.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed
M=$M,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed
M=$M,sm__inst_executed.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
M=$M,lts__t_sectors_srcunit_tex_op_red.sum,lts__t_requests_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric_lookup_miss.sum
for pt in "4096 gemmq:split:n256:s4 cublaslt:algo:1" "5120 gemmq:split:n320:s4 cublaslt:algo:0"; do
  set -- $pt
  for r in 1 2; do
    step 60 build-exp/dirty $2 $1 128 65537 fp32 30 >> $o/times.txt 2>> $log
    GQX_NOCOOP=1 step 60 build-exp/dirty-nocoop $2 $1 128 65537 fp32 30 >> $o/times-nocoop.txt 2>> $log
    step 60 build-exp/dirty $3 $1 128 65537 fp32 30 >> $o/times.txt 2>> $log
  done
done
prof() { # NAME OUT PROGRAM D_IN
  GQX_NOCOOP=1 step 120 ncu --clock-control none --cache-control none --replay-mode application \
    -k 'regex:gq_wg_kernel|nvjet' --launch-skip 2 --launch-count 1 --metrics $M --csv \
    build-exp/dirty-nocoop $3 $4 128 65537 $2 4 > $o/ncu-$1.csv 2>> $log; }
for r in 1 2 3; do
  prof 4096-fp32-ours-$r fp32 gemmq:split:n256:s4 4096
  prof 4096-fp32-cublaslt-$r fp32 cublaslt:algo:1 4096
  prof 5120-fp32-ours-$r fp32 gemmq:split:n320:s4 5120
  prof 5120-fp32-cublaslt-$r fp32 cublaslt:algo:0 5120
done
prof 4096-bf16-ours-1 bf16 gemmq:split:n256:s4 4096
prof 5120-bf16-ours-1 bf16 gemmq:split:n320:s4 5120
tar czf $OUT/r4.tgz -C /tmp r4
