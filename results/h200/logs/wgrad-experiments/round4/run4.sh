#!/usr/bin/env bash
# run4.sh: clusters as a way to place CTAs, and the cost of a bad order under ncu
# (wgrad-experiments.md, fourth round), from the repository root on one H200:
# bash results/h200/logs/wgrad-experiments/round4/run4.sh (writes $OUT/r.tgz; then
# ../round3/summarize.py tsv /tmp/r/<run>.json... > variants-4.tsv).
# build/gemmq from main; build-exp/gemmq-cls from main with cluster-size.patch (order.patch plus
# GQX_CL=0 GQX_CLS=c: clusters of c consecutive N tiles that share nothing, only placed together).
RUN_TIMEOUT=60
R4=results/h200/logs/wgrad-experiments/round4
. results/h200/logs/wgrad-experiments/round3/bench.sh
. $R4/check.sh
check cls8 build-exp/gemmq-cls GQX_CL=0 GQX_CLS=8
for rep in 1 2; do
run a_$rep build/gemmq
[ $rep = 1 ] && run s_$rep build-exp/gemmq-cls
for c in 2 4 8 16; do run c${c}_$rep build-exp/gemmq-cls GQX_CL=0 GQX_CLS=$c; done
done
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex.sum,lts__t_sector_hit_rate.pct,breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed
for e in "GQX_ORDER=0" "GQX_ORDER=3" "GQX_CL=0 GQX_CLS=8"; do
  t=$(echo $e | tr ' =' '_-')
  echo "# command: env $e ncu --clock-control none -k 'regex:gq_wg_kernel' --metrics $M build-exp/gemmq-cls accuracy $R4/probe-ncu128.json --device 0 -q -p gemmq:split:n128:s4 -p gemmq:split:n256:s4" > /tmp/r/ncu4-$t.log
  env $e timeout 120 ncu --clock-control none -k 'regex:gq_wg_kernel' --metrics $M build-exp/gemmq-cls accuracy $R4/probe-ncu128.json --device 0 -q -p gemmq:split:n128:s4 -p gemmq:split:n256:s4 -o /tmp/r/ncu-probe.json >> /tmp/r/ncu4-$t.log 2>&1
  echo "ncu $e rc=$?" | tee -a /tmp/r/runs.txt
done
tar czf $OUT/r.tgz -C /tmp r
