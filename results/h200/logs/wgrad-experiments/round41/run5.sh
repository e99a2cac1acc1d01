#!/usr/bin/env bash
# run5.sh: forty-first round, call 5, from the repository root, with build-exp/dirty-nocoop carried
# (run4.sh's header). Where the two GEMMs' traffic is uneven: ncu's min, max and mean over the
# units (DRAM channels, L2 slices, SMs) of their bytes, sectors and busy cycles, and the L2 reads
# split into hits and misses; our GEMM (not cooperative) and cuBLASLt's fastest, FP32 out, T =
# 65537, the flush's dirty L2, twice each, alternating. Everything lands in $OUT/r5.tgz.
set -u
mkdir -p /tmp/r5; o=/tmp/r5; log=$o/run5.log
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > $o/gpu.txt 2>&1
step() { local lim=$1; shift; echo "# $*" >> $log; timeout -s KILL "$lim" "$@"; echo "rc=$?" >> $log; }
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_read.max,dram__bytes_read.min
M=$M,dram__cycles_active.avg.pct_of_peak_sustained_elapsed,dram__cycles_active.max.pct_of_peak_sustained_elapsed
M=$M,dram__cycles_active.min.pct_of_peak_sustained_elapsed,lts__t_sectors.sum,lts__t_sectors.max,lts__t_sectors.min
M=$M,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
M=$M,lts__ltcfabric2ltc_cycles_active.max.pct_of_peak_sustained_elapsed,lts__ltcfabric2ltc_cycles_active.min.pct_of_peak_sustained_elapsed
M=$M,sm__cycles_active.max,sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_elapsed.max
M=$M,lts__t_sectors_srcunit_tex_op_read.max,lts__t_sectors_srcunit_tex_op_read.min,lts__d_sectors_fill_device.sum
prof() { # NAME PROGRAM D_IN
  GQX_NOCOOP=1 step 150 ncu --clock-control none --cache-control none --replay-mode application \
    -k 'regex:gq_wg_kernel|nvjet' --launch-skip 2 --launch-count 1 --metrics $M --csv \
    build-exp/dirty-nocoop $2 $3 128 65537 fp32 4 > $o/ncu-$1.csv 2>> $log; }
for r in 1 2; do
  prof 5120-ours-$r gemmq:split:n320:s4 5120
  prof 5120-cublaslt-$r cublaslt:algo:0 5120
  prof 4096-ours-$r gemmq:split:n256:s4 4096
  prof 4096-cublaslt-$r cublaslt:algo:1 4096
done
tar czf $OUT/r5.tgz -C /tmp r5
