#!/usr/bin/env bash
# run2.sh: forty-first round, call 2 (the same H200 as call 1), from the repository root, with
# build-exp/dirty carried. Call 1's ncu runs of our BF16 ops ended in cudaErrorIllegalInstruction
# in the rounding kernel (the GEMM's programmatic dependent) under ncu; the GEMM kernel is the same
# with FP32 out, which has no rounding kernel, so this profiles both GEMMs with FP32 out (ours
# and cuBLASLt's fastest of call 1), with call 1's counters and the L2's reads, writes and
# reductions by kind, three times each, alternating.
set -u
D=build-exp/dirty
log=$OUT/run2.log
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > $OUT/gpu.txt 2>&1
step() { local lim=$1; shift; echo "# $*" >> $log; timeout -s KILL "$lim" "$@"; echo "rc=$?" >> $log; }
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,launch__grid_size
M=$M,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_tex_lookup_hit.sum
M=$M,lts__t_sectors_srcunit_ltcfabric.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed
M=$M,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed
M=$M,sm__inst_executed.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
M=$M,lts__t_sectors_srcunit_tex_op_red.sum,lts__t_requests_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric_lookup_miss.sum
for r in 1 2 3; do
  for pt in "4096 gemmq:split:n256:s4 cublaslt:algo:1" "5120 gemmq:split:n320:s4 cublaslt:algo:0"; do
    set -- $pt; din=$1
    for p in $2 $3; do
      step 120 ncu --clock-control none --cache-control none --replay-mode application \
        -k 'regex:gq_wg_kernel|nvjet' --launch-skip 2 --launch-count 1 --metrics $M --csv \
        $D $p $din 128 65537 fp32 4 > $OUT/ncu-$din-fp32-${p//:/_}-$r.csv 2>> $log
    done
  done
done
