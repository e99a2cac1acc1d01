#!/usr/bin/env bash
# run3.sh: twenty-seventh round, call 3 (an H200), from the repository root:
#   C=3 bash results/h200/logs/wgrad-experiments/round27/run3.sh   (writes $OUT/all.tgz)
# build-exp/h27b.txz: build-exp/h27b/gemmq and gpu_test_gpu_kernels of df.patch (its GQX_DF and
# the knob GQX_PF=K: K K-blocks before its end, each CTA's producer has the L2 fetch the lines its
# sums will be added into, evict-last, by cp.async.bulk.prefetch.tensor over the sums' map), and
# build-exp/h27v/gemmq the same with -DGQX_DF_TRACE (call 2's times, and the adds' own: from the
# warpgroup's staging to its wait for the TMA unit's adds). The FP64 check at T = 65537 with
# GQX_PF=8; traced benches of ../round23/probe-128.json (3 replays) with GQX_DF=1 and GQX_PF 0, 8
# and 16; then probe-128 with n256:s4 and n320:s4, 200 timed replays, GQX_PF unset (x0) and 4, 8,
# 16, 32, interleaved, four times.
c=${C:?give the call number in C}
R=h27b
pp="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
. results/h200/logs/wgrad-experiments/round25/start.sh
checks "p8:GQX_PF=8"
for k in 0 8 16; do
  timed "trace pf$k" 120 /tmp/o/trace-pf$k.log env GQX_DF=1 GQX_PF=$k build-exp/h27v/gemmq bench \
    results/h200/logs/wgrad-experiments/round23/probe-128.json $pp --iterations 3 -o /tmp/r/trace-pf$k.json
done
snap "traces done"
variants "x0 p4:GQX_PF=4 p8:GQX_PF=8 p16:GQX_PF=16 p32:GQX_PF=32"
for i in 3 4; do for v in x0 p4 p8 p16 p32; do v_step 0 $v $i; done; done
snap "all four done"
