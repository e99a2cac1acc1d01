#!/usr/bin/env bash
# run2.sh: thirty-fifth round, call 2 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round35/run2.sh
# build-exp/r35m.txz: main (686a897) from `round35/prepare.sh r35m ...`.
# The nine GPU test programs, gemmq bench --iterations 200 protocols/k1_wgrad.json
# (programs.json, programs.md), then the main job (`gemmq qualify`, the smoke protocol). Every
# step is killed (SIGKILL) at its limit; everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r35m
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
for t in bench timing cupti_late timing_engine time_fault reference kernels programs det_processes; do
  (cd build && step gpu_test_gpu_$t 150 $o/gpu_test_gpu_$t.log tests/gpu_test_gpu_$t)
done
grep -h "checks," $o/gpu_test_gpu_*.log
pack
step bench 380 $o/programs.log build/gemmq bench --device 0 --iterations 200 \
  -o $o/programs.json --md $o/programs.md protocols/k1_wgrad.json
tail -n 1 $o/programs.log
pack
step smoke 80 $o/smoke.log build/gemmq qualify -o $o/smoke.json
tail -n 1 $o/smoke.log
cat $o/runs.txt
pack
