#!/usr/bin/env bash
# run2.sh: nineteenth round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round19/run2.sh   (writes $OUT/all.tgz after every step)
# Call 1 (run1.sh) ran out of its time limit before its bench: gemmq-b's checks hung (90 s and
# 120 s, both ended by timeout) where gemmq-a's passed. This call times m and a only: the
# memory-bound bench of m (the four split programs of round3/bench.sh) and of a (the same and
# n320:s3, n320:s4), four times each, interleaved, from build-exp/s19-1.txz as in call 1.
# (The interleaved bench was written out here when this ran; it now uses ../round16/start.sh's
# ab_extra.)
c=2
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/s19-1.txz
ab_extra 4 "-p gemmq:split:n320:s3 -p gemmq:split:n320:s4" m:build-exp/s19/gemmq-m a:build-exp/s19/gemmq-a
tables "m a"
python3 results/h200/logs/wgrad-experiments/round18/progs.py tsv /tmp/r/[ma]_[1-4].json > /tmp/o/programs-$c.tsv
python3 results/h200/logs/wgrad-experiments/round18/progs.py table /tmp/o/programs-$c.tsv m a > /tmp/o/progs-$c.txt 2>&1; cat /tmp/o/progs-$c.txt
snap "progs done"
