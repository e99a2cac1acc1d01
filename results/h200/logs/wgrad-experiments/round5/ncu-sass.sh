#!/usr/bin/env bash
# ncu-sass.sh: the SASS of cuBLASLt's two fastest algorithms at 4096x32 and 4096x128, T = 65537,
# FP32 out, as they run (ncu's source page; the library's cubins do not name the nvjet kernels),
# from the repository root on one H200: bash results/h200/logs/wgrad-experiments/round5/ncu-sass.sh
# (writes $OUT/r.tgz; then sass-summary.py /tmp/r > sass-summary.txt: the full listings are not
# kept, only what the summary takes from them).
R5=results/h200/logs/wgrad-experiments/round5
mkdir -p /tmp/r
for p in 32 128; do
  J=$R5/probe-ncu$p.json; [ $p = 128 ] && J=results/h200/logs/wgrad-experiments/round4/probe-ncu128.json
  for a in 0 1 2; do
    t=d$p-algo$a
    timeout 100 ncu --clock-control none -k regex:nvjet --launch-count 1 --section SourceCounters --section LaunchStats -o /tmp/r/$t build/gemmq accuracy $J --device 0 -q -p cublaslt:algo:$a -o /tmp/r/acc.json > /tmp/r/$t.log 2>&1
    echo "$t rc=$?"
    ncu -i /tmp/r/$t.ncu-rep --page details > /tmp/r/$t-details.txt 2>&1
    ncu -i /tmp/r/$t.ncu-rep --page source --print-source sass --csv > /tmp/r/$t-sass.csv 2>&1
    grep -m1 -o 'nvjet[^ ]*' /tmp/r/$t-details.txt; wc -l < /tmp/r/$t-sass.csv
  done
done
rm -f /tmp/r/*.ncu-rep /tmp/r/acc.json
tar czf $OUT/r.tgz -C /tmp r
