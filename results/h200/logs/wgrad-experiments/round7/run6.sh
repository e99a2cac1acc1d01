#!/usr/bin/env bash
# run6.sh: seventh round, call 6 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round7/run6.sh   (writes $OUT/r.tgz)
# How many bytes cross the fabric between the two halves of the L2: ncu's memory chart and
# tables, raw, for our two split programs and cuBLASLt's two fastest algorithms at 4096x128,
# T = 65537, FP32 out (../round4/probe-ncu128.json); build/gemmq is main (a08b4df).
mkdir -p /tmp/r
P=results/h200/logs/wgrad-experiments/round4/probe-ncu128.json
nvidia-smi --query-gpu=name,serial --format=csv,noheader > /tmp/r/gpu.txt
cmd="ncu --clock-control none -k regex:gq_wg_kernel|nvjet --section MemoryWorkloadAnalysis_Chart --section MemoryWorkloadAnalysis_Tables --section SpeedOfLight --page raw build/gemmq accuracy $P --device 0 -q -p gemmq:split:n128:s4 -p gemmq:split:n256:s4 -p cublaslt:algo:0 -p cublaslt:algo:1 -o /tmp/r/ncu-probe.json"
echo "# command: $cmd" > /tmp/r/ncu-fabric.log
timeout 400 $cmd >> /tmp/r/ncu-fabric.log 2>&1
echo "ncu rc=$?" >> /tmp/r/ncu-fabric.log
tar czf $OUT/r.tgz -C /tmp r
