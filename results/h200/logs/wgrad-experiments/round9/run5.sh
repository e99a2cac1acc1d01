#!/usr/bin/env bash
# run5.sh: ninth round, call 5 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round9/run5.sh   (writes $OUT/r.tgz)
# Where the instructions and the warps' stalls go at 5120x128, T = 65537, FP32 out
# (../round8/probe-ncu5120.json): ncu's source counters, warp states and scheduler statistics of
# gemmq:split:n128:s3 (clusters of four sharing g, x streamed) and of cuBLASLt's algorithms 4 and 0,
# one launch each. build-exp/gemmq-main is main (21af3c3).
mkdir -p /tmp/r
P=results/h200/logs/wgrad-experiments/round8/probe-ncu5120.json
nvidia-smi --query-gpu=name,serial --format=csv,noheader > /tmp/r/gpu.txt
for prog in gemmq:split:n128:s3 cublaslt:algo:4 cublaslt:algo:0; do
  t=$(echo $prog | tr ':' '-')
  timeout 120 ncu --clock-control none -k 'regex:gq_wg_kernel|nvjet' --launch-count 1 \
    --section SourceCounters --section WarpStateStats --section SchedulerStats --section LaunchStats \
    --section SpeedOfLight -o /tmp/r/$t build-exp/gemmq-main accuracy $P --device 0 -q -p $prog \
    -o /tmp/r/acc.json > /tmp/r/$t.log 2>&1
  echo "$t rc=$?"
  ncu -i /tmp/r/$t.ncu-rep --page details > /tmp/r/$t-details.txt 2>&1
  ncu -i /tmp/r/$t.ncu-rep --page source --print-source sass --csv > /tmp/r/$t-sass.csv 2>&1
  wc -l < /tmp/r/$t-sass.csv
done
rm -f /tmp/r/*.ncu-rep /tmp/r/acc.json
tar czf $OUT/r.tgz -C /tmp r
