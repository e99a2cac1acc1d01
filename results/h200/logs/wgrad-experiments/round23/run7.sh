#!/usr/bin/env bash
# run7.sh: twenty-third round, calls 13 and later (an H200 ×2 each), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round23/run7.sh   (writes $OUT/all.tgz at the end)
# build-exp/h23e.txz: ./gemmq-pad, 2616a9e with pad.patch (GQX_PAD=P: the split programs whose
# two M tiles share x launch P idle clusters of two before their grid, or -P after it; the
# (N tile, split) rows then run along y). Calls 3 to 6 found the grids of exactly 128 CTAs (ours
# and cuBLASLt's) 1.6-4.2 % slower on one H200 where those of 96-120 and 129-160 CTAs were not;
# 4 idle CTAs make n256:s4 at 4096 and n320:s4 at 5120 grids of 132.
# GPU 0, call 13 only (CHECK=1): the FP64 check of n256:s4 and n320:s4 with GQX_PAD=2 and -2.
# Each GPU at once: probe-128.json with n128:s4 (not padded: its clusters share g), n256:s4 and
# n320:s4, 200 timed replays, GQX_PAD unset (m), 2 (f) and -2 (b), interleaved, twice (qG_V_N).
# (The run had the loops written out; they now use ../round22/start.sh's interleaved.)
c=${C:?give the call number in C}
R=h23e
. results/h200/logs/wgrad-experiments/round22/start.sh
pp="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
if [ "${CHECK:-0}" = 1 ]; then
  for v in 2 -2; do
    CUDA_VISIBLE_DEVICES=0 GQX_PAD=$v timed "check pad $v" 100 /tmp/r/check$v.log ./gemmq-pad accuracy \
      results/h200/logs/wgrad-experiments/round4/probe-check.json -q $pp -o /tmp/r/check$v.json
    CUDA_VISIBLE_DEVICES=0 GQX_PAD=$v timed "check65537 pad $v" 100 /tmp/r/check65537$v.log ./gemmq-pad accuracy \
      results/h200/logs/wgrad-experiments/round18/probe-65537.json -q $pp -o /tmp/r/check65537$v.json
  done
fi
# step G TAG:PAD I: one bench on GPU G with GQX_PAD=PAD (unset for 0), the I-th
step() {
  local t pad
  IFS=: read -r t pad <<< "$2"
  if [ "$pad" = 0 ]; then unset GQX_PAD; else export GQX_PAD=$pad; fi
  timed "q$1 $t $3" 100 /tmp/r/q$1_${t}_$3.log ./gemmq-pad bench results/h200/logs/wgrad-experiments/round23/probe-128.json \
    -p gemmq:split:n128:s4 $pp --iterations 200 -q -o /tmp/r/q$1_${t}_$3.json --md /tmp/r/q$1_${t}_$3.md
}
interleaved "m:0 f:2 b:-2" step
snap "all done"
