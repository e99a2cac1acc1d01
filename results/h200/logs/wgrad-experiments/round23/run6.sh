#!/usr/bin/env bash
# run6.sh: twenty-third round, calls 9 and later (an H200 ×2 each), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round23/run6.sh   (writes $OUT/all.tgz at the end)
# Looking for an H200 where the 128-CTA grids are slow, to see whether a grid of 132 CTAs (the
# 64×384 tile with 6 splits, run5.sh's build b: 3 stages) is slowed there too. On each GPU at
# once: probe-128.json with n128:s3, n128:s4, n256:s4, n320:s4, n384:s5, n384:s6 of build b,
# 200 timed replays (qG).
c=${C:?give the call number in C}
R=h23d
. results/h200/logs/wgrad-experiments/round22/start.sh
for g in 0 1; do
  (
    export CUDA_VISIBLE_DEVICES=$g
    timed "q$g" 100 /tmp/r/q$g.log ./gemmq-b bench results/h200/logs/wgrad-experiments/round23/probe-128.json \
      -p gemmq:split:n128:s3 -p gemmq:split:n128:s4 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4 \
      -p gemmq:split:n384:s5 -p gemmq:split:n384:s6 --iterations 200 -q -o /tmp/r/q$g.json --md /tmp/r/q$g.md
  ) &
done
wait
snap "all done"
