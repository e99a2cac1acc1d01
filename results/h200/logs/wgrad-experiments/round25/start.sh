# start.sh: sourced by this round's run*.sh (from the repository root) with c and R set: unpacks
# build-exp/$R.txz through ../round22/start.sh (B: build-exp/$R/gemmq; `timed`, `interleaved`,
# `snap`), and defines, for the programs in pp (default n256:s4, n320:s4 and gemmq:det), with the
# environment of a setting given as VAR=VALUE[,VAR=VALUE...] (none where empty; BIN=PATH there
# runs PATH instead of $B):
#   checks "NAME:ENV...": the FP64 check at T = 65537 (../round18/probe-65537.json) of each, on
#     GPU 0 (/tmp/r/check65537-NAME.*);
#   gtests "NAME:ENV...": build-exp/$R/gpu_test_gpu_kernels with each (/tmp/o/gpu_test_gpu_kernels-NAME.log);
#   variants "NAME:ENV...": ../round23/probe-128.json, 200 timed replays, every NAME with its
#     environment, interleaved, twice, on each GPU (/tmp/r/tG_NAME_I.*).
# (BIN= and pp's default were added for run2.sh; run1.sh ran before, with the same steps.)
. results/h200/logs/wgrad-experiments/round22/start.sh
pp=${pp:-"-p gemmq:split:n256:s4 -p gemmq:split:n320:s4 -p gemmq:det"}
envof() { # NAME:ENV...  NAME -> the ENV of NAME, as words VAR=VALUE
  local v n e
  for v in $1; do n=${v%%:*}; e=${v#*:}; [ "$v" = "$n" ] && e=""
    [ "$n" = "$2" ] && { echo "${e//,/ }"; return; }; done; }
checks() {
  local v n
  for v in $1; do n=${v%%:*}
    env $(envof "$1" "$n") timeout 150 $B accuracy \
      results/h200/logs/wgrad-experiments/round18/probe-65537.json -q $pp \
      -o /tmp/r/check65537-$n.json > /tmp/r/check65537-$n.log 2>&1
    echo "check65537 $n rc=$?" >> /tmp/o/runs.txt
  done
  snap "checks done"
}
gtests() {
  local v n s
  for v in $1; do n=${v%%:*}; s=$(date +%s)
    (cd build-exp/$R && env $(envof "$1" "$n") timeout 150 ./gpu_test_gpu_kernels \
      > /tmp/o/gpu_test_gpu_kernels-$n.log 2>&1)
    echo "gpu_test_gpu_kernels $n rc=$? $(( $(date +%s) - s )) s" >> /tmp/o/runs.txt
  done
  snap "gtests done"
}
binof() { # ENV words -> the BIN=PATH among them, else $B
  local w; for w in $1; do [ "${w%%=*}" = BIN ] && { echo "${w#BIN=}"; return; }; done; echo "$B"; }
v_step() { # G NAME I
  local e; e=$(envof "$V" "$2")
  env $e timeout 100 $(binof "$e") bench results/h200/logs/wgrad-experiments/round23/probe-128.json \
    $pp --iterations 200 -o /tmp/r/t$1_$2_$3.json --md /tmp/r/t$1_$2_$3.md > /tmp/r/t$1_$2_$3.log 2>&1
  echo "t$1 $2 $3 rc=$?" >> /tmp/o/runs.txt
}
variants() {
  V=$1
  interleaved "$(for v in $1; do printf '%s ' "${v%%:*}"; done)" v_step
  snap "all done"
}
