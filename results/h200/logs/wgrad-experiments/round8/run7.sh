#!/usr/bin/env bash
# run7.sh: eighth round, call 7 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round8/run7.sh   (writes $OUT/ncu-5120.log and $OUT/r.tgz)
# Where the shared kernel stands against cuBLASLt's fastest at 5120x128, T = 65537, FP32 out
# (probe-ncu5120.json): ncu's DRAM, L2 and tensor counters of gemmq:split:n128:s3 (clusters of
# four sharing g, x streamed), gemmq:det and cuBLASLt's algorithms 0 and 4 (the fastest, and the
# fastest accurate in programs.md). build/gemmq is 88d90ea.
mkdir -p /tmp/r
P=results/h200/logs/wgrad-experiments/round8/probe-ncu5120.json
nvidia-smi --query-gpu=name,serial --format=csv,noheader > /tmp/r/gpu.txt
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,lts__t_sectors_srcunit_tex_lookup_hit.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed
M=$M,sm__inst_executed.avg.pct_of_peak_sustained_elapsed,launch__grid_size,launch__cluster_dim_y
cmd="ncu --clock-control none -k regex:gq_wg_kernel|nvjet --metrics $M build/gemmq accuracy $P --device 0 -q -p gemmq:split:n128:s3 -p gemmq:det -p cublaslt:algo:0 -p cublaslt:algo:4 -o /tmp/r/ncu-probe.json"
echo "# command: $cmd" > $OUT/ncu-5120.log
timeout 140 $cmd >> $OUT/ncu-5120.log 2>&1
echo "ncu rc=$?" >> $OUT/ncu-5120.log
tar czf $OUT/r.tgz -C /tmp r
