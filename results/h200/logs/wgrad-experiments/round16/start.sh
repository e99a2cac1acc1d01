# start.sh: sourced first by run1.sh to run3.sh (from the repository root), with c set and the
# round's archives as arguments: unpacks them, clears /tmp/o and /tmp/r (a machine may hold an
# earlier session's), sources ../round9/prologue.sh and notes the GPU in /tmp/o/gpu-$c.txt.
# (The runs were made with these lines written out in each run*.sh; they now share this file.)
for a in "$@"; do tar xJf "$a"; done
rm -rf /tmp/o /tmp/r
. results/h200/logs/wgrad-experiments/round9/prologue.sh
nvidia-smi --query-gpu=index,name,serial --format=csv,noheader > /tmp/o/gpu-$c.txt
# ab "TAG:BINARY[:VAR=VALUE] ...": the memory-bound bench (../round3/bench.sh's run) of each
# build TAG_1, TAG_2, TAG_3, the builds interleaved, then noted with snap.
ab() {
  for i in 1 2 3; do
    for v in $1; do IFS=: read -r t b e <<< "$v"; run ${t}_$i $b $e; done
  done
  snap "ab done"; }
# ab_extra N "EXTRA" BASE:BINARY TAG:BINARY...: the same with programs that differ: every build N
# times, interleaved, BASE with the programs in progs, each other TAG with them and EXTRA (added in
# the twenty-third round for the run scripts of rounds 18 and 19, which had these loops written
# out).
ab_extra() {
  local n=$1 extra=$2 base=$3 p4="$progs" i v t b
  shift 2
  for i in $(seq 1 "$n"); do
    for v in "$@"; do
      IFS=: read -r t b <<< "$v"
      if [ "$v" = "$base" ]; then progs="$p4"; else progs="$p4 $extra"; fi
      run ${t}_$i "$b"
    done
  done
  progs="$p4"
  snap "ab done"; }
# gputest_bin PROGRAM TAG [SECONDS]: the GPU test PROGRAM (a path from build/) run from build/ as
# ctest runs it, bounded by SECONDS (default 150), into /tmp/o/gpu_test_gpu_TAG.log, then noted
# with snap with its exit status and time. ../round10/landed.sh's gputest NAME [SECONDS] does the
# same for ../build-exp/gpu_test_gpu_NAME only. (Added in the eighteenth round, whose run scripts
# had these lines written out when they ran.)
gputest_bin() {
  local s; s=$(date +%s)
  (cd build && timeout "${3:-150}" "$1" > "/tmp/o/gpu_test_gpu_$2.log" 2>&1)
  snap "gpu_test_gpu_$2 rc=$? $(( $(date +%s) - s )) s"; }
