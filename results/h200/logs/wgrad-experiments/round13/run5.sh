#!/usr/bin/env bash
# run5.sh: thirteenth round, call 5 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round13/run5.sh
# build-exp/drift: drift.cu with the hooks of trace.py on the third state of shared-tails.patch (a
# claim warp takes the tail's chunks and posts them to the producers), the nvcc line at the top
# of drift.cu: run4.sh's lines with CALL=5 (the same variants, timed the same way, at T = 65537
# and 40963; every CTA's trace in $OUT/traces).
CALL=5 bash results/h200/logs/wgrad-experiments/round13/run4.sh
