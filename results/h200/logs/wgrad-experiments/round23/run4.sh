#!/usr/bin/env bash
# run4.sh: twenty-third round, call 7 (an H200 ×2), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round23/run4.sh   (writes $OUT/all.tgz at the end)
# build-exp/h23c.txz holds build/gemmq of the tree after 455c7c4 with the bench's cuBLASLt config
# and the 64×384 tile (gemmq:split:n384, splits up to 8; not committed when this ran), stripped.
# At 4096x128, 11 N tiles × 2 M tiles × 6 splits fill all 132 SMs, as cuBLASLt's algorithm with
# the 384×64 tile and 6 splits does (its config, calls 3 to 6).
# GPU 0: the FP64 check of n384:s4, s5, s6, s8 (../round4/probe-check.json, T 1025 and 16173,
#   and ../round18/probe-65537.json), then probe-128.json with the split programs and n384.
# GPU 1: the memory-bound bench with the six split programs of ../round22/run1.sh and n384:s5,
#   n384:s6, 200 timed replays, --sm-clock (mG).
c=7
tar xJf build-exp/r22l.txz
R=h23c
. results/h200/logs/wgrad-experiments/round22/start.sh
B=build/gemmq
n384="-p gemmq:split:n384:s4 -p gemmq:split:n384:s5 -p gemmq:split:n384:s6 -p gemmq:split:n384:s8"
(
  export CUDA_VISIBLE_DEVICES=0
  timed "check g0" 200 /tmp/r/check.log $B accuracy results/h200/logs/wgrad-experiments/round4/probe-check.json -q $n384 -o /tmp/r/check.json
  timed "check65537 g0" 200 /tmp/r/check-65537.log $B accuracy results/h200/logs/wgrad-experiments/round18/probe-65537.json -q $n384 -o /tmp/r/check-65537.json
  timed "p g0" 200 /tmp/r/p0.log $B bench results/h200/logs/wgrad-experiments/round23/probe-128.json \
    $progs $n384 --iterations 200 --sm-clock -q -o /tmp/r/p0.json --md /tmp/r/p0.md
  timed "layout g0" 60 /tmp/o/layout-g0.txt build-exp/r22l/layout
) &
(
  export CUDA_VISIBLE_DEVICES=1
  timed "m g1" 250 /tmp/r/m1.log $B bench $P $progs -p gemmq:split:n384:s5 -p gemmq:split:n384:s6 \
    --iterations 200 --sm-clock -q -o /tmp/r/m1.json --md /tmp/r/m1.md
  timed "layout g1" 60 /tmp/o/layout-g1.txt build-exp/r22l/layout
) &
wait
smi_after
snap "all done"
