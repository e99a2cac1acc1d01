#!/usr/bin/env bash
# run8.sh: forty-second round, call 8 (one H200), from the repository root, with build-exp/r42d.txz
# carried (prepare.sh): gq (main) and gq-d4 (the 64x256 ring in 4 stages). It measures again, on
# one more H200, what calls 5 to 7 measured (their records were not kept):
# 1. ../round30/probe-miss.json, four split programs, 200 timed replays: main and d4 in turn, 3 times;
# 2. probe-t.json (4096x128, T = 24576 to 65537, both outs), n256:s4 alone, 200 timed replays with
#    --sm-clock: main and d4 in turn, twice;
# 3. the memory-bound bench (protocols/k1_wgrad_membound.json, the 16 split programs), d4 then main.
# Everything in $OUT/r8.tgz.
set -u
mkdir -p build-exp/r42 && tar xJf build-exp/r42d.txz -C build-exp/r42
mkdir -p /tmp/r8; o=/tmp/r8; W=results/h200/logs/wgrad-experiments; R=$W/round42
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > $o/gpu.txt 2>&1
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" >> $o/runs.txt; }
pack() { tar czf $OUT/r8.tgz -C /tmp r8; }
gq() { if [ $1 = m ]; then echo build-exp/r42/gq; else echo build-exp/r42/gq-$1; fi; }
ours="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4 -p gemmq:split:n256:s3 -p gemmq:split:n128:s4"
for i in 1 2 3; do
  for v in m d4; do
    step miss-$v-$i 90 $o/miss-$v-$i.log $(gq $v) bench $W/round30/probe-miss.json $ours \
      --iterations 200 -o $o/miss-$v-$i.json
  done
done
pack
for i in 1 2; do
  for v in m d4; do
    step t-$v-$i 90 $o/t-$v-$i.log $(gq $v) bench $R/probe-t.json -p gemmq:split:n256:s4 \
      --iterations 200 --sm-clock -o $o/t-$v-$i.json
  done
done
pack
all=""; for n in 64 128 256 320; do for s in 1 2 3 4; do all="$all -p gemmq:split:n$n:s$s"; done; done
for v in d4 m; do
  step membound-$v 200 $o/membound-$v.log $(gq $v) bench --iterations 200 $all \
    -o $o/membound-$v.json protocols/k1_wgrad_membound.json
  pack
done
