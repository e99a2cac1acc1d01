#!/usr/bin/env bash
# run2.sh: twentieth round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round20/run2.sh   (writes $OUT/all.tgz after every step)
# build-exp/s20-2.txz holds build-exp/s20/gemmq-k, built from 0dbf305 with round20/tr-knobs.patch
# (round20/tr.patch with GQX_TR taking values): BF16 out of the split programs, where the grid is
# resident at once, with GQX_TR=1 rounded by the splits (as call 1), 2 counted and waited for but
# not rounded, 3 rounded without the count and the wait, 4 neither (after the TMA adds into the
# sums the kernel ends, and no rounding kernel follows). 2, 3 and 4 leave out wrong: they time
# parts of the end. The memory-bound bench of m (no environment) and t1 to t4, three times each,
# interleaved, with n320:s3 and n320:s4 added to round3/bench.sh's four.
c=2
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/s20-2.txz
B=build-exp/s20/gemmq-k
progs="$progs -p gemmq:split:n320:s3 -p gemmq:split:n320:s4"
ab "m:$B t1:$B:GQX_TR=1 t2:$B:GQX_TR=2 t3:$B:GQX_TR=3 t4:$B:GQX_TR=4"
tables "m t1 t2 t3 t4"
python3 results/h200/logs/wgrad-experiments/round16/delta.py /tmp/o/variants-$c.tsv > /tmp/o/delta-$c.txt 2>&1; cat /tmp/o/delta-$c.txt
snap "delta done"
