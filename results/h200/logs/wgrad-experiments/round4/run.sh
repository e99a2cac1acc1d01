#!/usr/bin/env bash
# run.sh: clusters with whole shared boxes (wgrad-experiments.md, fourth round), from the
# repository root on one H200: bash results/h200/logs/wgrad-experiments/round4/run.sh
# (writes $OUT/r.tgz). build/gemmq from main; build-exp/gemmq-cl from main with cl-full.patch
# (../round3/x-multicast/x-multicast.patch plus GQX_GMC=C: clusters of C N tiles sharing g;
# GQX_XMC=1: pairs of M tiles sharing x; GQX_WHOLE=1: every shared box copied whole by one CTA
# of the cluster). Then: ../round3/summarize.py tsv /tmp/r/<run>.json... > variants-1.tsv
RUN_TIMEOUT=60
R4=results/h200/logs/wgrad-experiments/round4
. results/h200/logs/wgrad-experiments/round3/bench.sh
CHECK_PROGS="-p gemmq:split:n128:s3 -p gemmq:split:n256:s4 -p gemmq:split:n64:s2"
. $R4/check.sh
# correctness first: every variant against the FP64 reference at odd T (exit status 1: a miss)
for e in "GQX_NONE=1" "GQX_GMC=2 GQX_WHOLE=1" "GQX_GMC=4 GQX_WHOLE=1" "GQX_XMC=1 GQX_WHOLE=1"; do
  check $(echo $e | tr ' =' '_-') build-exp/gemmq-cl $e
done
for rep in 1 2; do
run a_$rep build/gemmq
run n_$rep build-exp/gemmq-cl
run gw_$rep build-exp/gemmq-cl GQX_GMC=2 GQX_WHOLE=1
run gr_$rep build-exp/gemmq-cl GQX_GMC=2
run gw4_$rep build-exp/gemmq-cl GQX_GMC=4 GQX_WHOLE=1
run gws_$rep build-exp/gemmq-cl GQX_GMC=2 GQX_WHOLE=1 GEMMQ_WG_SPREAD=1
run xw_$rep build-exp/gemmq-cl GQX_XMC=1 GQX_WHOLE=1
done
# ncu: which part of L2 is busy, ours (no cluster, g shared, x shared) against cuBLASLt's two fastest
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__t_sectors_srcunit_tex.sum,breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed
for e in "GQX_NONE=1" "GQX_GMC=2 GQX_WHOLE=1" "GQX_XMC=1 GQX_WHOLE=1"; do
  t=$(echo $e | tr ' =' '_-')
  p="-p gemmq:split:n128:s4"; [ "$e" = "GQX_XMC=1 GQX_WHOLE=1" ] && p="-p gemmq:split:n256:s4"
  [ "$e" = "GQX_NONE=1" ] && p="$p -p gemmq:split:n256:s4 -p cublaslt:algo:0 -p cublaslt:algo:1"
  echo "# command: env $e ncu --clock-control none -k 'regex:gq_wg_kernel|nvjet' --metrics $M build-exp/gemmq-cl accuracy $R4/probe-ncu128.json --device 0 -q $p" > /tmp/r/ncu-$t.log
  env $e timeout 120 ncu --clock-control none -k 'regex:gq_wg_kernel|nvjet' --metrics $M build-exp/gemmq-cl accuracy $R4/probe-ncu128.json --device 0 -q $p -o /tmp/r/ncu-probe.json >> /tmp/r/ncu-$t.log 2>&1
  echo "ncu $e rc=$?" | tee -a /tmp/r/runs.txt
done
tar czf $OUT/r.tgz -C /tmp r
