#!/usr/bin/env bash
# run6.sh: forty-first round, call 6, from the repository root, with build-exp/dirty-nocoop and (both from prepare.sh)
# build-exp/dirty-order carried: dirty.cu linked with gemm_wgmma.cu under nocoop.patch (main's
# kernels; GQX_NOCOOP=1 drops the cooperative attribute, for ncu), and under nocoop.patch plus
# order.patch built with -DGQX_ORDER=1 (a tile's splits launched one after the other; the
# clusters along N keep main's order). 1. The order build's out against cublas:default's
# (DIRTY_CHECK=1) at odd T. 2. Both builds timed with events, alternating, four times each.
# 3. ncu's counters of both at 5120x128 and 4096x128, FP32 out. Everything in $OUT/r6.tgz.
set -u
mkdir -p /tmp/r6; o=/tmp/r6; log=$o/run6.log
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > $o/gpu.txt 2>&1
step() { local lim=$1; shift; echo "# $*" >> $log; timeout -s KILL "$lim" "$@"; echo "rc=$?" >> $log; }
for c in "gemmq:split:n256:s4 4096 128" "gemmq:split:n320:s4 5120 128" "gemmq:split:n256:s3 5120 128" \
         "gemmq:split:n128:s4 4096 128" "gemmq:split:n128:s4 4096 32" "gemmq:det 4096 128"; do
  for t in 1025 16173 65537; do for out in fp32 bf16; do
    DIRTY_CHECK=1 step 60 build-exp/dirty-order $c $t $out 2 >> $o/check.txt 2>> $log
  done; done
done
for r in 1 2 3 4; do
  for pt in "gemmq:split:n256:s4 4096" "gemmq:split:n320:s4 5120"; do
    set -- $pt
    for out in bf16 fp32; do
      step 60 build-exp/dirty-nocoop $1 $2 128 65537 $out 30 >> $o/times-main.txt 2>> $log
      step 60 build-exp/dirty-order $1 $2 128 65537 $out 30 >> $o/times-order.txt 2>> $log
    done
  done
done
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__cycles_active.avg.pct_of_peak_sustained_elapsed
M=$M,lts__t_sectors.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
M=$M,lts__t_sectors_srcunit_ltcfabric.sum,sm__cycles_active.max,sm__cycles_active.avg,sm__cycles_elapsed.avg.per_second
for b in nocoop order; do for pt in "gemmq:split:n320:s4 5120" "gemmq:split:n256:s4 4096"; do
  set -- $pt
  GQX_NOCOOP=1 step 150 ncu --clock-control none --cache-control none --replay-mode application \
    -k 'regex:gq_wg_kernel' --launch-skip 2 --launch-count 1 --metrics $M --csv \
    build-exp/dirty-$b $1 $2 128 65537 fp32 4 > $o/ncu-$2-$b.csv 2>> $log
done; done
tar czf $OUT/r6.tgz -C /tmp r6
