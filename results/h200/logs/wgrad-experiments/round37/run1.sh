#!/usr/bin/env bash
# run1.sh: thirty-seventh round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round37/run1.sh
# Builds: `round35/prepare.sh r37m r37s:round37/s8.patch` (r37m: main; r37s: main whose
# program names take 1 to 8 K splits, so that gemmq:split:n320:s5 runs: at 4096x128 13 N tiles
# × 2 M tiles × 5 splits = 130 CTAs, the grid of cuBLASLt's 320x64 splitK kernel there).
# 1. the FP64 checks of n320:s5 to s8 (../round4/probe-check.json, ../round18/probe-65537.json);
# 2. ../round30/probe-miss.json, 200 timed replays, n256:s4, n320:s4 and n320:s5, r37s then
#    main (m, without n320:s5), three times;
# 3. gemmq bench --iterations 200 protocols/k1_wgrad_membound.json with the 16 split programs
#    and n320:s5 (r37s).
. results/h200/logs/wgrad-experiments/round29/start.sh r37s r37m
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
new="-p gemmq:split:n320:s5 -p gemmq:split:n320:s6 -p gemmq:split:n320:s8 -p gemmq:split:n256:s5"
step check-s 60 $o/check-s.log build/gemmq accuracy $W/round4/probe-check.json -q $new \
  -o $o/check-s.json
step check65537-s 60 $o/check65537-s.log build/gemmq accuracy $W/round18/probe-65537.json \
  -q $new -o $o/check65537-s.json
tail -qn 1 $o/check*.log
pack
progs="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
for i in 1 2 3; do
  step s-$i 60 $o/s-$i.log build/gemmq bench $W/round30/probe-miss.json $progs \
    -p gemmq:split:n320:s5 --iterations 200 -o $o/s-$i.json --md $o/s-$i.md
  step m-$i 60 $o/m-$i.log build-exp/r37m/gemmq bench $W/round30/probe-miss.json $progs \
    --iterations 200 -o $o/m-$i.json --md $o/m-$i.md
  pack
done
all=""; for n in 64 128 256 320; do for s in 1 2 3 4; do all="$all -p gemmq:split:n$n:s$s"; done; done
step membound-s 200 $o/membound-s.log build/gemmq bench --iterations 200 $all \
  -p gemmq:split:n320:s5 -o $o/membound-s.json --md $o/membound-s.md \
  protocols/k1_wgrad_membound.json
tail -qn 1 $o/membound-*.log
cat $o/runs.txt
pack
