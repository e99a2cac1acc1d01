#!/usr/bin/env bash
# run3.sh: ninth round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round9/run3.sh   (writes $OUT/all.tgz after every step)
# build-exp/gemmq-main is main (21af3c3); build-exp/gemmq-pdl the same with pdl.patch: GQX_PDL=1
# zeroes the split's sums with a kernel of ours instead of cudaMemsetAsync, and launches the GEMM
# as its programmatic dependent (griddepcontrol): the GEMM starts while the zeroing runs and waits
# for it only before its epilogue.
. results/h200/logs/wgrad-experiments/round9/prologue.sh
check pd build-exp/gemmq-pdl GQX_PDL=1
snap "checks done"
for i in 1 2; do
  run a_$i build-exp/gemmq-main; run p0_$i build-exp/gemmq-pdl; run pd_$i build-exp/gemmq-pdl GQX_PDL=1
  snap "pass $i done"
done
(cd build && GQX_PDL=1 timeout 200 ../build-exp/gpu_test_gpu_kernels-pdl > /tmp/o/gpu_test_gpu_kernels-pd.log 2>&1); snap "gpu_test_gpu_kernels GQX_PDL=1 rc=$?"
run a_3 build-exp/gemmq-main; run pd_3 build-exp/gemmq-pdl GQX_PDL=1
snap "pass 3 done"
