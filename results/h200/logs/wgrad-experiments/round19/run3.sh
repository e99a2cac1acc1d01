#!/usr/bin/env bash
# run3.sh: nineteenth round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round19/run3.sh   (writes $OUT/all.tgz after every step)
# gemmq-b of call 1 hung because its build asked for more registers than an SM has (producer
# warpgroup 24, three consumer warpgroups 168 each: 67584 > 65536, so setmaxnreg.inc waits for
# ever; the kernel now asserts the sum at compile time). build-exp/s19-3.txz holds m and a as in
# call 1 and gemmq-c: the three consumer warpgroups (128, 128, 64 columns) with 40 and 152
# registers. The FP64 check of c's n320:s1..s4 (round4/probe-check.json, round18/probe-65537.json),
# then the memory-bound bench of m, a and c (a, c: with n320:s3, n320:s4) three times, interleaved.
c=3
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/s19-3.txz
CHECK_PROGS="-p gemmq:split:n320:s1 -p gemmq:split:n320:s2 -p gemmq:split:n320:s3 -p gemmq:split:n320:s4"
check c build-exp/s19/gemmq-c
timeout 60 build-exp/s19/gemmq-c accuracy results/h200/logs/wgrad-experiments/round18/probe-65537.json -q $CHECK_PROGS -o /tmp/r/check-c-65537.json > /tmp/r/check-c-65537.log 2>&1
echo "check-c-65537 rc=$?" | tee -a /tmp/r/runs.txt; tail -1 /tmp/r/check-c-65537.log
snap "checks done"
p4="$progs"
for i in 1 2 3; do
  progs="$p4"; run m_$i build-exp/s19/gemmq-m
  progs="$p4 -p gemmq:split:n320:s3 -p gemmq:split:n320:s4"
  run a_$i build-exp/s19/gemmq-a; run c_$i build-exp/s19/gemmq-c
done
progs="$p4"
snap "ab done"
tables "m a c"
python3 results/h200/logs/wgrad-experiments/round18/progs.py tsv /tmp/r/[mac]_[1-3].json > /tmp/o/programs-$c.tsv
python3 results/h200/logs/wgrad-experiments/round18/progs.py table /tmp/o/programs-$c.tsv m a c > /tmp/o/progs-$c.txt 2>&1; grep "5120\|---\|build" /tmp/o/progs-$c.txt
snap "progs done"
