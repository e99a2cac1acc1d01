# start.sh: sourced first by run2.sh and run3.sh (from the repository root), with c set: unpacks
# build-exp/r22b.txz through ../round16/start.sh, sets B (its gemmq) and progs (the six split
# programs of run1.sh), and notes nvidia-smi's temperature, power and clocks in /tmp/o/smi.csv;
# smi_after adds them once more at the end; each_gpu_bench [PROBE] is the step of run5.sh and
# run6.sh. (The runs were made with these lines written out in each run*.sh; they now share this
# file.) A later round sets R to its own archive's name (build-exp/$R.txz holding build-exp/$R/gemmq).
R=${R:-r22b}
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/$R.txz
B=build-exp/$R/gemmq
progs="$progs -p gemmq:split:n320:s3 -p gemmq:split:n320:s4"
q="--query-gpu=index,pci.bus_id,serial,temperature.gpu,power.limit,power.draw,clocks.sm,clocks_event_reasons.active --format=csv"
nvidia-smi $q > /tmp/o/smi.csv
smi_after() { nvidia-smi $q | tail -n +2 >> /tmp/o/smi.csv; }
# each_gpu_bench [PROBE]: on each GPU at once (CUDA_VISIBLE_DEVICES), build-exp/r22l/PROBE first
# when given (into /tmp/o/PROBE-gG.txt), then the memory-bound bench with --sm-clock and 200
# replays (/tmp/r/eG).
each_gpu_bench() {
  for g in 0 1; do
    (
      export CUDA_VISIBLE_DEVICES=$g
      if [ -n "${1:-}" ]; then
        timeout 60 build-exp/r22l/$1 > /tmp/o/$1-g$g.txt 2>&1
        echo "$1 g$g rc=$?" >> /tmp/o/runs.txt
      fi
      s=$(date +%s)
      timeout 200 $B bench $P $progs --iterations 200 --sm-clock -q -o /tmp/r/e$g.json --md /tmp/r/e$g.md > /tmp/r/e$g.log 2>&1
      echo "e$g rc=$? $(( $(date +%s) - s )) s" >> /tmp/o/runs.txt
    ) &
  done
  wait
}
# timed NAME SECONDS FILE COMMAND...: COMMAND bounded by SECONDS, its output into FILE, then
# "NAME rc=N S s" noted in /tmp/o/runs.txt (added in the twenty-third round, for its run1.sh).
timed() {
  local n=$1 t=$2 f=$3 s; shift 3
  s=$(date +%s)
  timeout "$t" "$@" > "$f" 2>&1
  echo "$n rc=$? $(( $(date +%s) - s )) s" >> /tmp/o/runs.txt; }
# interleaved "VARIANT..." STEP: on each GPU at once (CUDA_VISIBLE_DEVICES: 0 and 1, or 0 alone
# on a machine of one GPU), STEP G VARIANT I for every variant, the variants interleaved, I = 1
# then 2 (added in the twenty-third round, for its run5.sh and run7.sh; one GPU since the
# twenty-fourth).
interleaved() {
  local gs="0 1" g
  [ "$(nvidia-smi -L | wc -l)" -lt 2 ] && gs=0
  for g in $gs; do
    (
      export CUDA_VISIBLE_DEVICES=$g
      for i in 1 2; do for v in $1; do "$2" $g "$v" $i; done; done
    ) &
  done
  wait
}
