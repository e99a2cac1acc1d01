#!/usr/bin/env bash
# run4.sh: seventh round, call 4 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round7/run4.sh   (writes $OUT/r.tgz and runs.txt)
# build/gemmq main (a08b4df); build-exp/gemmq-lean as in call 3 (lean.patch); gemmq-aw main with
# asm-wait.patch (the mbarrier's retry loop written inside the asm, as CUTLASS does, so that the
# compiler schedules no loop of its own around it); gemmq-law both (lean-asm-wait.patch). The
# 128x128 kernel of each (build-exp/wg-*.o) is disassembled.
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
. results/h200/logs/wgrad-experiments/round4/check.sh
for v in main lean aw law; do
  /usr/local/cuda/bin/cuobjdump -sass -fun '_Z12gq_wg_kernelILi128ELi128ELb0EEv14CUtensorMap_stS0_12gq_wg_params' build-exp/wg-$v.o > /tmp/r/sass128-$v.txt 2>&1
done
check aw build-exp/gemmq-aw
check law build-exp/gemmq-law
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
for rep in 1 2; do
run a_$rep build/gemmq
run aw_$rep build-exp/gemmq-aw
run lean_$rep build-exp/gemmq-lean
run law_$rep build-exp/gemmq-law
done
cp /tmp/r/runs.txt $OUT/; tar czf $OUT/r.tgz -C /tmp r
