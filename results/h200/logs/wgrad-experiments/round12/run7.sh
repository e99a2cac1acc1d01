#!/usr/bin/env bash
# run7.sh: twelfth round, call 7 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round12/run7.sh
# The three programs once more after halves.h and stream.h took over their measurements and
# timing (and kernels/gemm_wgmma.cu its consumer's multiplies, gq_wg_multiply_stage, PTX
# unchanged): build-exp/l2-near, build-exp/near2 and build-exp/near (near2.cu +
# near-gather.patch), each with the nvcc line at the top of its source.
# run8.sh runs these lines again with CALL=8.
c=${CALL:-7}
nvidia-smi --query-gpu=name,serial --format=csv,noheader > $OUT/gpu-$c.txt
timeout 100 build-exp/l2-near /tmp/homes.bin 512 15 > $OUT/l2-near-512-call$c.log 2>&1
echo "rc=$?" >> $OUT/l2-near-512-call$c.log
timeout 150 build-exp/near2 65537 > $OUT/near2-65537-call$c.log 2>&1; echo "rc=$?" >> $OUT/near2-65537-call$c.log
timeout 150 build-exp/near 65537 4096 > $OUT/near-65537-call$c.log 2>&1; echo "rc=$?" >> $OUT/near-65537-call$c.log
cat $OUT/*-call$c.log
