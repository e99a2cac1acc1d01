#!/usr/bin/env bash
# run.sh STEP: forty-fourth round, calls 1 to 5 (one H200, one call each, in turn) and 6 (membound
# again, on another H200), from the
# repository root with build-exp/r44.txz (prepare.sh) carried:
#   bash results/h200/logs/wgrad-experiments/round44/run.sh shard0   (then shard1, accuracy, membound, programs)
# shard0, shard1: gemmq qualify protocols/k1_wgrad.json --device 0 --shard I/2, merged here into
#   results/h200/k1_wgrad.json;
# accuracy: the k1 accuracy of the 18 programs and cublas:default (protocols/k1_wgrad_odd.json,
#   10 seeds × 20 reruns: accuracy-k1-programs.json);
# membound (calls 4 and 6): gemmq bench --iterations 200 protocols/k1_wgrad_membound.json with the 16
#   split programs;
# programs (call 5): gemmq bench --iterations 200 protocols/k1_wgrad.json (programs.json).
# Each step is killed (SIGKILL) at its limit; everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r44
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
case "${1:?usage: run.sh shard0|shard1|accuracy|membound|programs}" in
shard0|shard1)
  i=${1#shard}
  step shard$i 570 $o/k1-s$i.log build/gemmq qualify protocols/k1_wgrad.json --device 0 \
    --shard $i/2 -o $o/k1-s$i.json
  tail -n 1 $o/k1-s$i.log ;;
accuracy)
  all=""; for n in 64 128 256 320; do for s in 1 2 3 4; do all="$all -p gemmq:split:n$n:s$s"; done; done
  step accuracy 500 $o/accuracy-k1-programs.log build/gemmq accuracy --device 0 -p gemmq:det \
    -p gemmq:streamk $all -p cublas:default -o $o/accuracy-k1-programs.json \
    protocols/k1_wgrad_odd.json
  tail -n 2 $o/accuracy-k1-programs.log ;;
membound)
  all=""; for n in 64 128 256 320; do for s in 1 2 3 4; do all="$all -p gemmq:split:n$n:s$s"; done; done
  step membound 300 $o/membound.log build/gemmq bench --iterations 200 $all \
    -o $o/membound.json --md $o/membound.md protocols/k1_wgrad_membound.json
  tail -n 1 $o/membound.log ;;
programs)
  step k1bench 400 $o/programs.log build/gemmq bench --device 0 --iterations 200 \
    -o $o/programs.json --md $o/programs.md protocols/k1_wgrad.json
  tail -n 1 $o/programs.log ;;
*) echo "run.sh: unknown step $1 (shard0, shard1, accuracy, membound or programs)" >&2; exit 2 ;;
esac
cat $o/runs.txt
pack
