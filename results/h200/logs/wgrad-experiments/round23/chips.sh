#!/usr/bin/env bash
# chips.sh: the speed goal per H200 over every bench of main's kernels (e876441's) in rounds 21 to
# 23, by chips.py (from this folder's parent: bash round23/chips.sh > round23/chips.txt). Left out:
# the builds with experimental kernels (round 21's b_*, round 22's call4-x0_* and call4-z*).
cd "$(dirname "$0")/.." || exit 1
python3 round23/chips.py \
  round21/i20_{1,2,3}-call1.json.gz round21/programs-call1.json.gz \
  round21/i200_1-call2.json.gz ../../programs.json round21/i200_{1,2}-call3.json.gz \
  round21/m_{1,2,3}-call4.json.gz round21/m200-call4.json.gz \
  round22/programs-g0.json.gz round22/g1_{1,2,3}.json.gz \
  round22/call2-{c0,c1,k0,k1}.json.gz round22/call3-d{0,1}_{1,2}.json.gz \
  round22/call4-m_{1,2,3}.json.gz round22/call4-m200_{1,2}.json.gz \
  round22/call{5,6,7,8}-e{0,1}.json.gz round23/call1-e{0,1}.json.gz
