#!/usr/bin/env bash
# run3.sh: twenty-second round, call 3 (an H200 ×2), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round22/run3.sh   (writes $OUT/all.tgz at the end)
# build-exp/r22b.txz as in run2.sh (5a3bdba). On each GPU at once (CUDA_VISIBLE_DEVICES): the
# memory-bound points with the six split programs of run1.sh, 200 timed replays, --sm-clock,
# twice (dG_1, dG_2); nvidia-smi's temperature, power and clocks before and after (smi.csv).
c=3
. results/h200/logs/wgrad-experiments/round22/start.sh
for g in 0 1; do
  (
    export CUDA_VISIBLE_DEVICES=$g
    for i in 1 2; do
      s=$(date +%s)
      timeout 200 $B bench $P $progs --iterations 200 --sm-clock -o /tmp/r/d${g}_$i.json --md /tmp/r/d${g}_$i.md > /tmp/r/d${g}_$i.log 2>&1
      echo "d${g}_$i rc=$? $(( $(date +%s) - s )) s" >> /tmp/o/runs.txt
    done
  ) &
done
wait
smi_after
snap "all done"
