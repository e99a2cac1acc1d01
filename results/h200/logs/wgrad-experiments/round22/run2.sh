#!/usr/bin/env bash
# run2.sh: twenty-second round, call 2 (an H200 ×2), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round22/run2.sh   (writes $OUT/all.tgz after every step)
# build-exp/r22b.txz holds build-exp/r22b/gemmq and gpu_test_gpu_timing of 5a3bdba, stripped
# (gemmq bench --sm-clock; kernels of e876441). On each GPU at once (CUDA_VISIBLE_DEVICES):
# 1. gpu_test_gpu_timing, with the SM clock's test (timing-gG.log);
# 2. the memory-bound points with the six split programs of run1.sh, 200 timed replays,
#    --sm-clock (cG);
# 3. gemmq bench protocols/k1_wgrad.json, every program, 20 timed replays, --sm-clock (kG).
# nvidia-smi's temperature, power and clocks before and after (smi.csv).
c=2
. results/h200/logs/wgrad-experiments/round22/start.sh
for g in 0 1; do
  (
    export CUDA_VISIBLE_DEVICES=$g
    s=$(date +%s)
    timeout 200 build-exp/r22b/gpu_test_gpu_timing > /tmp/o/timing-g$g.log 2>&1
    echo "timing g$g rc=$? $(( $(date +%s) - s )) s" >> /tmp/o/runs.txt
    s=$(date +%s)
    timeout 200 $B bench $P $progs --iterations 200 --sm-clock -o /tmp/r/c$g.json --md /tmp/r/c$g.md > /tmp/r/c$g.log 2>&1
    echo "c$g rc=$? $(( $(date +%s) - s )) s" >> /tmp/o/runs.txt
    s=$(date +%s)
    timeout 200 $B bench --sm-clock -o /tmp/r/k$g.json --md /tmp/r/k$g.md protocols/k1_wgrad.json > /tmp/r/k$g.log 2>&1
    echo "k$g rc=$? $(( $(date +%s) - s )) s" >> /tmp/o/runs.txt
  ) &
done
wait
smi_after
snap "all done"
