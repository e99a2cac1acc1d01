#!/usr/bin/env bash
# run6.sh: twenty-second round, calls 7 and later (an H200 ×2 each), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round22/run6.sh   (writes $OUT/all.tgz at the end)
# run5.sh's bench (r22b: 5a3bdba, --sm-clock, 200 replays, eG) on each GPU, after layout.cu
# (build-exp/r22l.txz, built as its header says) on each: the GPU's SMs grouped by GPC and where
# 128 CTAs in clusters of two land (layout-gG.txt).
c=${C:?give the call number in C}
tar xJf build-exp/r22l.txz
. results/h200/logs/wgrad-experiments/round22/start.sh
for g in 0 1; do
  (
    export CUDA_VISIBLE_DEVICES=$g
    timeout 60 build-exp/r22l/layout > /tmp/o/layout-g$g.txt 2>&1
    echo "layout g$g rc=$?" >> /tmp/o/runs.txt
    s=$(date +%s)
    timeout 200 $B bench $P $progs --iterations 200 --sm-clock -q -o /tmp/r/e$g.json --md /tmp/r/e$g.md > /tmp/r/e$g.log 2>&1
    echo "e$g rc=$? $(( $(date +%s) - s )) s" >> /tmp/o/runs.txt
  ) &
done
wait
smi_after
snap "all done"
