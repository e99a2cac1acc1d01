#!/usr/bin/env bash
# run4.sh I: thirty-fifth round, calls 4 and 5 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round35/run4.sh 0   (then 1)
# build-exp/r35m.txz: main (686a897) from `round35/prepare.sh r35m ...`.
# gemmq qualify protocols/k1_wgrad.json --device 0 --shard I/2, to be merged here with the other
# shard into results/h200/k1_wgrad.json. Killed (SIGKILL) at its limit; packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r35m
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
i=${1:?usage: run4.sh SHARD (0 or 1)}
step shard$i 560 $o/k1-s$i.log build/gemmq qualify protocols/k1_wgrad.json --device 0 \
  --shard $i/2 -o $o/k1-s$i.json
tail -n 1 $o/k1-s$i.log
cat $o/runs.txt
pack
