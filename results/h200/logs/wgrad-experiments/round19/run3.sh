#!/usr/bin/env bash
# run3.sh: nineteenth round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round19/run3.sh   (writes $OUT/all.tgz after every step)
# gemmq-b of call 1 hung because its build asked for more registers than an SM has (producer
# warpgroup 24, three consumer warpgroups 168 each: 67584 > 65536, so setmaxnreg.inc waits for
# ever; the kernel now asserts the sum at compile time). build-exp/s19-3.txz holds m and a as in
# call 1 and gemmq-c: the three consumer warpgroups (128, 128, 64 columns) with 40 and 152
# registers. The FP64 check of c's n320:s1..s4 (round4/probe-check.json, round18/probe-65537.json),
# then the memory-bound bench of m, a and c (a, c: with n320:s3, n320:s4) three times, interleaved.
# (The checks at T = 65537 and the interleaved bench were written out here when this ran; they
# now use ../round4/check.sh's check65537 and ../round16/start.sh's ab_extra.)
c=3
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/s19-3.txz
CHECK_PROGS="-p gemmq:split:n320:s1 -p gemmq:split:n320:s2 -p gemmq:split:n320:s3 -p gemmq:split:n320:s4"
check c build-exp/s19/gemmq-c
check65537 c build-exp/s19/gemmq-c 60
snap "checks done"
ab_extra 3 "-p gemmq:split:n320:s3 -p gemmq:split:n320:s4" m:build-exp/s19/gemmq-m a:build-exp/s19/gemmq-a c:build-exp/s19/gemmq-c
tables "m a c"
python3 results/h200/logs/wgrad-experiments/round18/progs.py tsv /tmp/r/[mac]_[1-3].json > /tmp/o/programs-$c.tsv
python3 results/h200/logs/wgrad-experiments/round18/progs.py table /tmp/o/programs-$c.tsv m a c > /tmp/o/progs-$c.txt 2>&1; grep "5120\|---\|build" /tmp/o/progs-$c.txt
snap "progs done"
