#!/usr/bin/env bash
# run5.sh: thirty-fourth round, call 5 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round34/run5.sh
# build-exp/r34l.txz (round34/prepare5.sh): gemmq and the GPU test programs of 1343065 (x's
# copies issued before g's), stripped.
# 1. the nine GPU test programs;
# 2. gemmq bench --iterations 200 protocols/k1_wgrad_membound.json with the 16 split programs;
# 3. the k1 accuracy of the 18 programs and cublas:default (protocols/k1_wgrad_odd.json,
#    10 seeds × 20 reruns: accuracy-k1-programs.json).
# Every step is killed (SIGKILL) at its limit; everything is packed into $OUT/all.tgz.
. results/h200/logs/wgrad-experiments/round29/start.sh r34l
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
for t in bench timing cupti_late timing_engine time_fault reference kernels programs det_processes; do
  (cd build && step gpu_test_gpu_$t 150 $o/gpu_test_gpu_$t.log tests/gpu_test_gpu_$t)
done
grep -h "checks," $o/gpu_test_gpu_*.log
pack
all=""; for n in 64 128 256 320; do for s in 1 2 3 4; do all="$all -p gemmq:split:n$n:s$s"; done; done
step membound 200 $o/membound.log build/gemmq bench --iterations 200 $all \
  -o $o/membound.json --md $o/membound.md protocols/k1_wgrad_membound.json
tail -n 1 $o/membound.log
pack
step accuracy 300 $o/accuracy-k1-programs.log build/gemmq accuracy --device 0 -p gemmq:det \
  -p gemmq:streamk $all -p cublas:default -o $o/accuracy-k1-programs.json protocols/k1_wgrad_odd.json
tail -n 2 $o/accuracy-k1-programs.log
cat $o/runs.txt
pack
