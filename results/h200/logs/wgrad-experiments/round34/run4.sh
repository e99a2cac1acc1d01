#!/usr/bin/env bash
# run4.sh: thirty-fourth round, call 4 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round34/run4.sh
# Builds: round34/prepare.sh (r34m: main), prepare3.sh (r34x: x's copies first), prepare4.sh
# (r34pw1, r34pw2, r34cw2: r34x with the producer's wait for a release a try_wait without the
# suspend-time hint, or a test_wait loop; or the consumers' wait for a stage's bytes a
# test_wait loop).
# 1. the FP64 check of each wait build (../round4/probe-check.json, the split programs and
#    gemmq:det);
# 2. ../round30/probe-miss.json, 200 timed replays: m, x, pw1, pw2, cw2 in turn, three times.
# Every step is killed (SIGKILL) at its limit.
. results/h200/logs/wgrad-experiments/round29/start.sh r34x r34m r34pw1 r34pw2 r34cw2
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
progs="-p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
for v in pw1 pw2 cw2; do
  step check-$v 60 $o/check-$v.log build-exp/r34$v/gemmq accuracy $W/round4/probe-check.json \
    -q $progs -p gemmq:split:n320:s3 -p gemmq:det -o $o/check-$v.json
done
tail -qn 1 $o/check*.log
pack
b() { local n=$1 bin=$2; shift 2
  step $n-$i 60 $o/$n-$i.log env "$@" $bin bench $W/round30/probe-miss.json $progs \
    --iterations 200 -o $o/$n-$i.json --md $o/$n-$i.md; }
for i in 1 2 3; do
  b m build-exp/r34m/gemmq GQX=0
  b x build/gemmq GQX=0
  b pw1 build-exp/r34pw1/gemmq GQX=0
  b pw2 build-exp/r34pw2/gemmq GQX=0
  b cw2 build-exp/r34cw2/gemmq GQX=0
  pack
done
cat $o/runs.txt
pack
