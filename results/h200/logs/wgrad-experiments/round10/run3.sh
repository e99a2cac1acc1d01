#!/usr/bin/env bash
# run3.sh: tenth round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round10/run3.sh   (writes $OUT/all.tgz after every step)
# build/gemmq is 5428690 (the partial tiles added by the TMA unit); build-exp/gemmq-p the same with
# pdlc.patch, -DGQX_PDLC=1: every GEMM kernel lets a dependent launch at its start; with the
# environment's GQX_PDLC=1, BF16 out is rounded by a conversion kernel launched as the GEMM's
# programmatic dependent, instead of by the tile's last CTA (no counters).
# First the accuracy of every program of 5428690 on k1_wgrad_odd (item 1 of the issue), then the
# knob: checked, and timed twice against build/gemmq, interleaved.
. results/h200/logs/wgrad-experiments/round9/prologue.sh
progs=""; for p in gemmq:det gemmq:streamk; do progs="$progs -p $p"; done
for n in 64 128 256; do for s in 1 2 3 4; do progs="$progs -p gemmq:split:n$n:s$s"; done; done
{ time build/gemmq accuracy --device 0 $progs -p cublas:default -o /tmp/o/accuracy-k1-programs.json protocols/k1_wgrad_odd.json ; } > /tmp/o/accuracy-k1-programs.log 2>&1
snap "accuracy rc=$?"
check pc build-exp/gemmq-p GQX_PDLC=1
snap "check done"
for i in 1 2; do
  run n_$i build/gemmq; run p_$i build-exp/gemmq-p; run pc_$i build-exp/gemmq-p GQX_PDLC=1
  snap "pass $i done"
done
