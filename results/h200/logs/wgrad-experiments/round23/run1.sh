#!/usr/bin/env bash
# run1.sh: twenty-third round, call 1 (an H200 ×2), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round23/run1.sh   (writes $OUT/all.tgz at the end)
# build-exp/r23.txz holds build-exp/r23/gemmq and gpu_test_gpu_timing of 00fa494, stripped (the
# --sm-clock path after its refactor; kernels of e876441); build-exp/r22l.txz the layout probe
# (../round22/layout.cu). On each GPU at once (CUDA_VISIBLE_DEVICES):
# 1. gpu_test_gpu_timing, with the SM clock's test (timing-gG.log);
# 2. the layout probe (layout-gG.txt);
# 3. the memory-bound points with the six split programs of ../round22/run1.sh, 200 timed
#    replays, --sm-clock (eG);
# 4. the main job, gemmq qualify protocols/smoke.json (smoke-gG.json, smoke-gG.log).
# nvidia-smi's temperature, power and clocks before and after (smi.csv). (The run had these
# steps written out, without the layout probe's seconds in runs.txt; they now use start.sh's timed.)
c=1
R=r23
tar xJf build-exp/r22l.txz
. results/h200/logs/wgrad-experiments/round22/start.sh
for g in 0 1; do
  (
    export CUDA_VISIBLE_DEVICES=$g
    timed "timing g$g" 200 /tmp/o/timing-g$g.log build-exp/r23/gpu_test_gpu_timing
    timed "layout g$g" 60 /tmp/o/layout-g$g.txt build-exp/r22l/layout
    timed e$g 200 /tmp/r/e$g.log $B bench $P $progs --iterations 200 --sm-clock -q -o /tmp/r/e$g.json --md /tmp/r/e$g.md
    timed "smoke g$g" 200 /tmp/r/smoke-g$g.log $B qualify -o /tmp/r/smoke-g$g.json protocols/smoke.json
  ) &
done
wait
smi_after
snap "all done"
