#!/usr/bin/env bash
# run5.sh: thirty-second round, call 5 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round32/run5.sh
# Call 4 (run4.sh) returned nothing: its first step, the FP64 check with GQX_ORDER=1, did not end
# within the call, and a gemmq that a plain timeout signals waits for the device before it exits.
# This call kills every step (SIGKILL) after 25 s and packs the record after each:
# ../round30/probe-miss.json with the four split programs beside cuBLASLt's top 8, 200 timed
# replays: main (m), the patch without the knob (o0) and with GQX_ORDER=4, 1, 2 and 5, once each;
# then the FP64 check at T = 65537 (../round18/probe-65537.json) of each knob.
. results/h200/logs/wgrad-experiments/round29/start.sh r32o r32p
k() { local n=$1 t=$2 f=$3 s; shift 3; s=$(date +%s)
  timeout -s KILL "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" | tee -a $o/runs.txt; pack; }
progs="-p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
b() { local n=$1 bin=$2; shift 2
  k $n 25 $o/$n.log env "$@" $bin bench $W/round30/probe-miss.json $progs \
    --iterations 200 -o $o/$n.json --md $o/$n.md; }
b m build-exp/r32p/gemmq GQX=0
b o0 build/gemmq GQX=0
b o4 build/gemmq GQX_ORDER=4
b o1 build/gemmq GQX_ORDER=1
b o2 build/gemmq GQX_ORDER=2
for z in 4 1 2; do
  k check65537-o$z 25 $o/check65537-o$z.log env GQX_ORDER=$z build/gemmq accuracy \
    $W/round18/probe-65537.json -q $progs -o $o/check65537-o$z.json
done
tail -qn 1 $o/check*.log
cat $o/runs.txt
