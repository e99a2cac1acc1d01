# start.sh: sourced first by run1.sh to run5.sh (from the repository root) with the names of
# their archives: unpacks build-exp/NAME.txz for each, puts the first one's gemmq and GPU test
# programs where ctest runs them (build/, build/tests/), clears /tmp/o29 (the call's record) and
# notes the GPU in it (gpu.txt). Then
#   step NAME SECONDS FILE COMMAND...  COMMAND bounded by SECONDS, its output into FILE, then
#                                      "NAME rc=N S s" into runs.txt;
#   pack                               the record into $OUT/all.tgz (the device returns only a
#                                      few files a call).
# (The runs were made with these lines written out in each run*.sh; they now share this file.
# Calls 2 to 5 noted fewer columns of nvidia-smi: no power.draw, no clocks.mem.)
set -u
o=/tmp/o29; rm -rf $o; mkdir -p $o
for a in "$@"; do tar xJf build-exp/$a.txz; done
mkdir -p build/tests
cp build-exp/$1/gemmq build/
cp build-exp/$1/gpu_test_gpu_* build/tests/
q="--query-gpu=index,name,serial,uuid,temperature.gpu,power.draw,clocks.sm,clocks.mem --format=csv"
nvidia-smi $q > $o/gpu.txt
step() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; }
pack() { tar czf $OUT/all.tgz -C /tmp o29; }
W=results/h200/logs/wgrad-experiments
