#!/usr/bin/env bash
# run1.sh: thirty-eighth round, call 1 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round38/run1.sh
# Build: `round35/prepare.sh r38m` (main). Does a program's place in gemmq bench's list move
# its time? The bench times each program's 200 replays in turn, its own programs first and
# cuBLASLt's after.
# 1. ../round30/probe-miss.json, 200 timed replays, with --sm-clock, in three orders, three
#    times each, interleaved:
#      a: n256:s4, n320:s4, then cublas:default and cublaslt:algo:0..7 (the bench's order);
#      b: cublas:default and cublaslt:algo:0..7 first, then n256:s4, n320:s4;
#      c: n256:s4, n320:s4, the nine library programs, n256:s4, n320:s4 again (an A/A: the
#         same programs first and last in one run);
# 2. gemmq bench --iterations 200 protocols/k1_wgrad_membound.json with the 16 split programs in
#    the bench's order (library last) and with the library programs first.
. results/h200/logs/wgrad-experiments/round29/start.sh r38m
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
ours="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
lib="-p cublas:default"; for a in 0 1 2 3 4 5 6 7; do lib="$lib -p cublaslt:algo:$a"; done
for i in 1 2 3; do
  step a-$i 90 $o/a-$i.log build/gemmq bench $W/round30/probe-miss.json $ours --sm-clock \
    --iterations 200 -o $o/a-$i.json --md $o/a-$i.md
  step b-$i 90 $o/b-$i.log build/gemmq bench $W/round30/probe-miss.json $lib $ours --sm-clock \
    --iterations 200 -o $o/b-$i.json --md $o/b-$i.md
  step c-$i 90 $o/c-$i.log build/gemmq bench $W/round30/probe-miss.json $ours $lib $ours \
    --sm-clock --iterations 200 -o $o/c-$i.json --md $o/c-$i.md
  pack
done
all=""; for n in 64 128 256 320; do for s in 1 2 3 4; do all="$all -p gemmq:split:n$n:s$s"; done; done
step membound-a 200 $o/membound-a.log build/gemmq bench --iterations 200 $all \
  -o $o/membound-a.json --md $o/membound-a.md protocols/k1_wgrad_membound.json
pack
step membound-b 200 $o/membound-b.log build/gemmq bench --iterations 200 $lib $all \
  -o $o/membound-b.json --md $o/membound-b.md protocols/k1_wgrad_membound.json
tail -qn 1 $o/membound-*.log
cat $o/runs.txt
pack
