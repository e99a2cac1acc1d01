#!/usr/bin/env bash
# run7.sh: seventh round, call 7 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round7/run7.sh   (writes $OUT/r.tgz and runs.txt)
# Call 6 (ncu) showed our kernel issuing instructions in 32 % of the cycles and keeping the ALU
# pipe 32 % and the FMA pipe 21 % busy, where cuBLASLt's kernels issue in 8-12 % and use neither.
# build/gemmq main (a08b4df); build-exp/gemmq-hint main with wait-hint.patch (each mbarrier wait
# a retry loop inside the asm whose try_wait carries a suspend-time hint, so that a waiting thread
# sleeps until the phase completes instead of polling); gemmq-lhint the same on lean-asm-wait
# (lean-wait-hint.patch). Then ncu's instruction and warp-state sections for main and hint.
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
. results/h200/logs/wgrad-experiments/round4/check.sh
check hint build-exp/gemmq-hint
check lhint build-exp/gemmq-lhint
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
for rep in 1 2; do
run a_$rep build/gemmq
run hint_$rep build-exp/gemmq-hint
run lhint_$rep build-exp/gemmq-lhint
done
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
P=results/h200/logs/wgrad-experiments/round4/probe-ncu128.json
for b in build/gemmq build-exp/gemmq-hint; do
  t=$(basename $b)
  cmd="ncu --clock-control none -k regex:gq_wg_kernel --section InstructionStats --section WarpStateStats --section SchedulerStats --section SpeedOfLight --page raw --print-metric-instances values $b accuracy $P --device 0 -q -p gemmq:split:n128:s4 -o /tmp/r/ncu-probe.json"
  echo "# command: $cmd" > /tmp/r/ncu-inst-$t.log
  timeout 200 $cmd >> /tmp/r/ncu-inst-$t.log 2>&1
  echo "ncu $t rc=$?" | tee -a /tmp/r/runs.txt
done
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
