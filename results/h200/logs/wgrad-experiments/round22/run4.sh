#!/usr/bin/env bash
# run4.sh: twenty-second round, call 4 (an H200 ×2), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round22/run4.sh   (writes $OUT/all.tgz at the end)
# build-exp/r22z.txz holds build/gemmq and build/tests/gpu_test_gpu_{kernels,programs} of
# b3682f6 with zero-in-kernel.patch (GQX_ZK=1: split 0 zeroes the sums in the kernel, no memset
# node), stripped; build-exp/r22b.txz main's gemmq of 5a3bdba (kernels of e876441). Both GPUs at
# once (CUDA_VISIBLE_DEVICES):
# GPU 0: the two GPU tests with GQX_ZK=1; then the memory-bound bench (six split programs, 20
#        replays) of m (r22b), x0 (r22z, no variable) and z (r22z, GQX_ZK=1), three times each,
#        interleaved;
# GPU 1: the same bench with 200 replays, m, z, m, z.
c=4
tar xJf build-exp/r22z.txz
. results/h200/logs/wgrad-experiments/round22/start.sh
M=$B Z=build/gemmq
(
  export CUDA_VISIBLE_DEVICES=0
  for t in kernels programs; do
    s=$(date +%s)
    (cd build && GQX_ZK=1 timeout 200 ./tests/gpu_test_gpu_$t > /tmp/o/gpu_test_gpu_$t-z.log 2>&1)
    echo "gpu_test_gpu_$t-z rc=$? $(( $(date +%s) - s )) s" >> /tmp/o/runs.txt
  done
  for i in 1 2 3; do
    for v in m:$M: x0:$Z: z:$Z:GQX_ZK=1; do
      IFS=: read -r t b e <<< "$v"
      env $e timeout 100 $b bench $P $progs -q -o /tmp/r/${t}_$i.json --md /tmp/r/${t}_$i.md > /tmp/r/${t}_$i.log 2>&1
      echo "${t}_$i rc=$?" >> /tmp/o/runs.txt
    done
  done
) &
(
  export CUDA_VISIBLE_DEVICES=1
  for v in m200_1:$M: z200_1:$Z:GQX_ZK=1 m200_2:$M: z200_2:$Z:GQX_ZK=1; do
    IFS=: read -r t b e <<< "$v"
    env $e timeout 150 $b bench $P $progs --iterations 200 -q -o /tmp/r/$t.json --md /tmp/r/$t.md > /tmp/r/$t.log 2>&1
    echo "$t rc=$?" >> /tmp/o/runs.txt
  done
) &
wait
smi_after
snap "all done"
