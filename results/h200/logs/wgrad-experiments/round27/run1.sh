#!/usr/bin/env bash
# run1.sh: twenty-seventh round, call 1 (an H200), from the repository root:
#   C=1 bash results/h200/logs/wgrad-experiments/round27/run1.sh   (writes $OUT/all.tgz)
# build-exp/h27a.txz: build-exp/h27a/gemmq and gpu_test_gpu_kernels of df.patch (on 6e5c23c; as it
# stands the patch also has call 3's GQX_PF knob and trace times, which this build had not), and
# build-exp/h27t/gemmq the same with -DGQX_DF_TRACE (each CTA prints its choice). df.patch's knob
# GQX_DF=1 (environment; BF16 out of the split programs in clusters of 2 sharing x, whole tiles):
# no rounding kernel; the split of a tile that ends last finishes it where the others have added
# and counted their sums two K-blocks before its end (its producer copies their sums into the
# ring's freed stages, its consumers add their own and store BF16), else it adds and counts too
# and the block's last count rounds the block. The FP64 checks (T = 65537; T = 1025 and 16173 of
# ../round4/probe-check.json, where T = 1025 leaves every split too few K-blocks to finish: the
# counted end) and the GPU kernel test with GQX_DF=1; one traced bench of
# ../round23/probe-128.json (3 replays); then probe-128 with n256:s4 and n320:s4, 200 timed
# replays, the patch without the knob (x0: main's kernels and end) and with it (d), interleaved,
# six times.
c=${C:?give the call number in C}
R=h27a
pp="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
. results/h200/logs/wgrad-experiments/round25/start.sh
checks "d:GQX_DF=1"
checks_odd "d:GQX_DF=1"
snap "check d done"
gtests "d:GQX_DF=1"
timed "trace" 120 /tmp/o/trace.log env GQX_DF=1 build-exp/h27t/gemmq bench \
  results/h200/logs/wgrad-experiments/round23/probe-128.json $pp --iterations 3 -o /tmp/r/trace.json
snap "trace done"
variants "x0 d:GQX_DF=1"
for i in 3 4 5 6; do for v in x0 d; do v_step 0 $v $i; done; done
snap "all six done"
