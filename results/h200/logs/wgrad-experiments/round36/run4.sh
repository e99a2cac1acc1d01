#!/usr/bin/env bash
# run4.sh: thirty-sixth round, call 4 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round36/run4.sh
# Builds: `round35/prepare.sh r36m r36k3:round36/kalt3.patch r36k32:round36/kalt3-c32.patch
# r36kn:round36/kalt3-c4096.patch` (kalt3: kalt2's consumers in a loop that is not unrolled;
# chunks of 8, 32 and 4096 of a warpgroup's K-blocks: the last adds into the shared sums only
# once, at its end).
# 1. the FP64 checks of the three with n256:s3, n256:s4 (../round18/probe-65537.json; k3 also
#    ../round4/probe-check.json);
# 2. ../round30/probe-miss.json with n256:s3 and n256:s4, 200 timed replays: main (m), k3, k32,
#    kn in turn, three times.
. results/h200/logs/wgrad-experiments/round29/start.sh r36k3 r36m r36k32 r36kn
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  local rc=$?; echo "$n rc=$rc $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; return $rc; }
p256="-p gemmq:split:n256:s3 -p gemmq:split:n256:s4"
step check-k3 60 $o/check-k3.log build/gemmq accuracy $W/round4/probe-check.json \
  -q $p256 -o $o/check-k3.json
for v in k3:build/gemmq k32:build-exp/r36k32/gemmq kn:build-exp/r36kn/gemmq; do
  n=${v%%:*} bin=${v#*:}
  step check65537-$n 60 $o/check65537-$n.log $bin accuracy $W/round18/probe-65537.json \
    -q $p256 -o $o/check65537-$n.json
done
tail -qn 1 $o/check*.log
pack
b() { local n=$1 bin=$2
  step $n-$i 60 $o/$n-$i.log $bin bench $W/round30/probe-miss.json $p256 \
    --iterations 200 -o $o/$n-$i.json --md $o/$n-$i.md; }
for i in 1 2 3; do
  b m build-exp/r36m/gemmq
  b k3 build/gemmq
  b k32 build-exp/r36k32/gemmq
  b kn build-exp/r36kn/gemmq
  pack
done
cat $o/runs.txt
pack
