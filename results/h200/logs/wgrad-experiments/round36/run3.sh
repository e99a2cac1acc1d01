#!/usr/bin/env bash
# run3.sh: thirty-sixth round, call 3 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round36/run3.sh
# Builds: `round35/prepare.sh r36m r36j:round36/kalt2.patch` (r36j: the alternating consumer
# warpgroups of kalt.patch, each K-block waited for and released at once).
# 1. the FP64 checks of r36j: n256:s3, n256:s4 and gemmq:det, then n320:s3 and n320:s4 alone
#    (../round4/probe-check.json, ../round18/probe-65537.json);
# 2. ../round30/probe-miss.json with n256:s3 and n256:s4, 200 timed replays: main (m) and r36j
#    (j) in turn, three times; then, if n320's checks passed, with n320:s4 added, twice.
. results/h200/logs/wgrad-experiments/round29/start.sh r36j r36m
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  local rc=$?; echo "$n rc=$rc $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; return $rc; }
p256="-p gemmq:split:n256:s3 -p gemmq:split:n256:s4"
p320="-p gemmq:split:n320:s3 -p gemmq:split:n320:s4"
step check-j 60 $o/check-j.log build/gemmq accuracy $W/round4/probe-check.json \
  -q $p256 -p gemmq:det -o $o/check-j.json
step check65537-j 60 $o/check65537-j.log build/gemmq accuracy $W/round18/probe-65537.json \
  -q $p256 -p gemmq:det -o $o/check65537-j.json
ok320=1
step check320-j 60 $o/check320-j.log build/gemmq accuracy $W/round4/probe-check.json \
  -q $p320 -o $o/check320-j.json || ok320=0
step check320-65537-j 60 $o/check320-65537-j.log build/gemmq accuracy \
  $W/round18/probe-65537.json -q $p320 -o $o/check320-65537-j.json || ok320=0
tail -qn 1 $o/check*.log
pack
b() { local n=$1 bin=$2 tag=$3; shift 3
  step $n$tag-$i 60 $o/$n$tag-$i.log $bin bench $W/round30/probe-miss.json "$@" \
    --iterations 200 -o $o/$n$tag-$i.json --md $o/$n$tag-$i.md; }
for i in 1 2 3; do
  b m build-exp/r36m/gemmq "" $p256
  b j build/gemmq "" $p256
  pack
done
if [ $ok320 = 1 ]; then
  for i in 1 2; do
    b m build-exp/r36m/gemmq 320 $p256 -p gemmq:split:n320:s4
    b j build/gemmq 320 $p256 -p gemmq:split:n320:s4
    pack
  done
fi
cat $o/runs.txt
pack
