#!/usr/bin/env bash
# run8.sh: twelfth round, call 8 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round12/run8.sh
# Call 7 again after halves.h made the halves' scratch a block per line (near2 and near then
# used 64 MiB of scratch, which gave two lines to some blocks, and near's run found 64 SMs on the
# other half instead of 66); they now take x as scratch. build-exp/l2-near, build-exp/near2
# and build-exp/near (near2.cu + near-gather.patch), each with the nvcc line at its top.
CALL=8 bash results/h200/logs/wgrad-experiments/round12/run7.sh
