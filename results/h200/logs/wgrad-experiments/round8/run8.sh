#!/usr/bin/env bash
# run8.sh: eighth round, call 8 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round8/run8.sh   (writes $OUT/r.tgz and runs.txt)
# build/gemmq is 517dab8 (the kernel of 88d90ea); build-exp/gemmq-xpf the same with xpf.patch:
# GQX_XPF=d makes the producers of the shared copies (d_out 128, x six L2s or more) bring x's
# boxes of K-block i + d into L2 (cp.async.bulk.prefetch.tensor) as they copy K-block i.
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
. results/h200/logs/wgrad-experiments/round4/check.sh
CHECK_PROGS="-p gemmq:split:n128:s3 -p gemmq:split:n256:s4"
check p4 build-exp/gemmq-xpf GQX_XPF=4
run a_1 build/gemmq; run p0_1 build-exp/gemmq-xpf; run p4_1 build-exp/gemmq-xpf GQX_XPF=4
run p8_1 build-exp/gemmq-xpf GQX_XPF=8
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
run a_2 build/gemmq; run p4_2 build-exp/gemmq-xpf GQX_XPF=4; run p8_2 build-exp/gemmq-xpf GQX_XPF=8
run p0_2 build-exp/gemmq-xpf
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
