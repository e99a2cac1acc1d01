#!/usr/bin/env bash
# run1.sh: tenth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round10/run1.sh   (writes $OUT/all.tgz after every step)
# Builds (build-exp/, all from knobs.patch on 4c478bd, RelWithDebInfo, sm_90a): gemmq-a the patch
# with its defaults (the kernel of main); -il GQX_IL=1 (split z takes K-blocks z, z + S, ...);
# -e0 GQX_EPI=0 (no epilogue: wrong sums), -e1 GQX_EPI=1 (plain stores instead of atomics: wrong
# sums), -e2 GQX_EPI=2 (the tile added by the TMA unit, cp.reduce.async.bulk.tensor), -e2il both.
. results/h200/logs/wgrad-experiments/round9/prologue.sh
for b in il e2 e2il; do check $b build-exp/gemmq-$b; done
snap "checks done"
for i in 1 2; do
  for b in a il e0 e1 e2 e2il; do run ${b}_$i build-exp/gemmq-$b; done
  snap "pass $i done"
done
(timeout 200 build-exp/gpu_test_gpu_kernels-e2 > /tmp/o/gpu_test_gpu_kernels-e2.log 2>&1); snap "gpu_test_gpu_kernels-e2 rc=$?"
