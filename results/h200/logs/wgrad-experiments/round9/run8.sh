#!/usr/bin/env bash
# run8.sh: ninth round, call 8 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round9/run8.sh   (writes $OUT/ncu-l2-5120.log)
# Which unit of the L2 is ~92 % busy in both our shared kernel and cuBLASLt's at 5120x128,
# T = 65537, FP32 out (../round8/probe-ncu5120.json): ncu's breakdown of lts__throughput and of
# dram__throughput for gemmq:split:n128:s3 and cuBLASLt's algorithms 0 and 4, one launch each.
# build-exp/gemmq-main is main (21af3c3).
P=results/h200/logs/wgrad-experiments/round8/probe-ncu5120.json
M=breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,breakdown:dram__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,gpu__time_duration.sum,lts__t_requests_srcunit_tex.sum,lts__t_sectors_srcunit_tex.sum,lts__d_sectors_fill_sysmem.sum
M=$M,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,dram__bytes_write.sum
cmd="ncu --clock-control none -k regex:gq_wg_kernel|nvjet --metrics $M build-exp/gemmq-main accuracy $P --device 0 -q -p gemmq:split:n128:s3 -p cublaslt:algo:0 -p cublaslt:algo:4 -o /tmp/ncu-probe.json"
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/ncu-l2-5120.log
echo "# command: $cmd" >> $OUT/ncu-l2-5120.log
timeout 200 $cmd >> $OUT/ncu-l2-5120.log 2>&1
echo "ncu rc=$?" >> $OUT/ncu-l2-5120.log
