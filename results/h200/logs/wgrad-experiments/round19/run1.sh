#!/usr/bin/env bash
# run1.sh: nineteenth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round19/run1.sh   (writes $OUT/all.tgz after every step)
# build-exp/s19-1.txz holds build-exp/s19/gemmq-m (main's kernels, fed7b69's build) and the two
# builds of round19/n320.patch (gemmq:split:n320:s<1..4>: a 64×320 tile, cuBLASLt's 320x64 at
# 5120x128, whose 16 N tiles × 2 M tiles × 4 splits make 128 CTAs; x shared by the cluster of two
# M tiles as in n256; the producer a warpgroup that hands its registers to the consumers):
# gemmq-a with two consumer warpgroups of 192 and 128 columns (GQX_W3 0), gemmq-b with three of
# 128, 128 and 64 (GQX_W3 1). The FP64 check of n320:s1..s4 (round4/probe-check.json, T 1025 and
# 16173, and round18/probe-65537.json), then the memory-bound bench of m (the four split programs
# of round3/bench.sh) and of a and b (the same and n320:s3, n320:s4), four times each,
# interleaved.
# (The checks at T = 65537 and the interleaved bench were written out here when this ran; they
# now use ../round4/check.sh's check65537 and ../round16/start.sh's ab_extra.)
c=1
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/s19-1.txz
(which cuobjdump && cuobjdump -sass build-exp/s19/gemmq-a | grep -c "STL\|LDL") > /tmp/o/sass-a.txt 2>&1
for b in a b; do
  CHECK_PROGS="-p gemmq:split:n320:s1 -p gemmq:split:n320:s2 -p gemmq:split:n320:s3 -p gemmq:split:n320:s4"
  check $b build-exp/s19/gemmq-$b
  check65537 $b build-exp/s19/gemmq-$b
done
snap "checks done"
ab_extra 4 "-p gemmq:split:n320:s3 -p gemmq:split:n320:s4" m:build-exp/s19/gemmq-m a:build-exp/s19/gemmq-a b:build-exp/s19/gemmq-b
tables "m a b"
python3 results/h200/logs/wgrad-experiments/round18/progs.py tsv /tmp/r/[mab]_[1-4].json > /tmp/o/programs-$c.tsv
python3 results/h200/logs/wgrad-experiments/round18/progs.py table /tmp/o/programs-$c.tsv m a b > /tmp/o/progs-$c.txt 2>&1; tail -60 /tmp/o/progs-$c.txt
snap "progs done"
