#!/usr/bin/env bash
# run6.sh: forty-second round, call 6 (one H200), from the repository root, with build-exp/r42d.txz
# carried (prepare.sh): gq (main) and gq-d4 (the 64x256 ring in 4 stages). probe-t.json (4096x128,
# T = 24576 to 65537, both outs), n256:s4 alone, 200 timed replays, main and d4 in turn, 3 times.
# Everything in $OUT/r6.tgz.
set -u
mkdir -p build-exp/r42 && tar xJf build-exp/r42d.txz -C build-exp/r42
mkdir -p /tmp/r6; o=/tmp/r6; R=results/h200/logs/wgrad-experiments/round42
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > $o/gpu.txt 2>&1
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" >> $o/runs.txt; }
pack() { tar czf $OUT/r6.tgz -C /tmp r6; }
for i in 1 2 3; do
  for v in m d4; do
    b=build-exp/r42/gq-$v; [ $v = m ] && b=build-exp/r42/gq
    step $v-$i 90 $o/$v-$i.log $b bench $R/probe-t.json -p gemmq:split:n256:s4 \
      --iterations 200 -o $o/$v-$i.json
  done
  pack
done
