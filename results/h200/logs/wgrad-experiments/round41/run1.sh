#!/usr/bin/env bash
# run1.sh: forty-first round, call 1 (one H200), from the repository root, with build-exp/dirty
# (the nvcc line at the top of round41/dirty.cu) carried:
#   bash results/h200/logs/wgrad-experiments/round41/run1.sh   (writes $OUT/*)
# 1. Each program's op at 4096x128 and 5120x128, T = 65537, after the bench's flush, timed with
#    CUDA events (dirty's median of 30 launches): our best split and cuBLASLt's top 8 with BF16
#    out, then ours and cuBLASLt's fastest of those with FP32 out.
# 2. ncu's DRAM, L2, fabric, SM clock and tensor counters of our GEMM kernel and of cuBLASLt's
#    fastest (by step 1) at each point with BF16 out, with the L2 the flush leaves: no cache control, the clocks
#    left alone, every pass a run of the whole program (application replay), the third launch.
set -u
D=build-exp/dirty
log=$OUT/run1.log
nvidia-smi --query-gpu=name,uuid,power.limit,clocks.max.sm,clocks.max.mem --format=csv > $OUT/gpu.txt 2>&1
{ command -v ncu; ncu --version; } >> $log 2>&1
step() { local lim=$1; shift; echo "# $*" >> $log; timeout -s KILL "$lim" "$@"; echo "rc=$?" >> $log; }
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,launch__grid_size
M=$M,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_tex_lookup_hit.sum
M=$M,lts__t_sectors_srcunit_ltcfabric.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed
M=$M,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed
M=$M,sm__inst_executed.sum
for pt in "4096 128 65537 n256:s4" "5120 128 65537 n320:s4"; do
  set -- $pt; din=$1 dout=$2 t=$3 ours=gemmq:split:$4
  tf=$OUT/times-$din-bf16.txt; : > $tf
  for p in $ours cublaslt:algo:{0..7}; do step 60 $D $p $din $dout $t bf16 30 >> $tf 2>> $log; done
  best=$(grep '^cublaslt' $tf | sort -t' ' -k7 -g | head -1 | cut -d' ' -f1)
  echo "# $din fastest cuBLASLt by events (BF16 out): $best" >> $log
  for p in $ours $best; do step 60 $D $p $din $dout $t fp32 30 >> $OUT/times-$din-fp32.txt 2>> $log; done
  for p in $ours $best; do
    step 120 ncu --clock-control none --cache-control none --replay-mode application \
      -k 'regex:gq_wg_kernel|nvjet' --launch-skip 2 --launch-count 1 --metrics $M --csv \
      $D $p $din $dout $t bf16 4 > $OUT/ncu-$din-bf16-${p//:/_}.csv 2>> $log
  done
done
