# start.sh: sourced by this round's run*.sh (from the repository root) with c and R set: unpacks
# build-exp/$R.txz through ../round22/start.sh (B: build-exp/$R/gemmq; `timed`, `interleaved`,
# `snap`), and defines, for the programs in pp (default n256:s4, n320:s4 and gemmq:det), with the
# environment of a setting given as VAR=VALUE[,VAR=VALUE...] (none where empty; BIN=PATH there
# runs PATH instead of $B):
#   checks "NAME:ENV...": the FP64 check at T = 65537 (../round18/probe-65537.json) of each, on
#     GPU 0 (/tmp/r/check65537-NAME.*);
#   checks_odd "NAME:ENV...": the same at T = 1025 and 16173 (../round4/probe-check.json), without
#     a snap (/tmp/r/check-NAME.*);
#   gtests "NAME:ENV...": build-exp/$R/gpu_test_gpu_kernels with each (/tmp/o/gpu_test_gpu_kernels-NAME.log);
#   variants "NAME:ENV...": ../round23/probe-128.json, 200 timed replays, every NAME with its
#     environment, interleaved, twice, on each GPU (/tmp/r/tG_NAME_I.*).
# (BIN= and pp's default were added for run2.sh, run1.sh ran before; both calls ran these steps
# with the timeouts and the runs.txt lines written out, which `timed` now makes, adding the
# seconds to each line. checks takes BIN= and checks_odd exists since round 27: round25/run2.sh,
# round26/run1.sh and round27/run1.sh ran checks_odd's command written out, round27/run4.sh and
# run5.sh checks' with BIN= written out as a loop; the helpers also put BIN=PATH in the command's
# environment, as variants does.)
. results/h200/logs/wgrad-experiments/round22/start.sh
pp=${pp:-"-p gemmq:split:n256:s4 -p gemmq:split:n320:s4 -p gemmq:det"}
envof() { # NAME:ENV...  NAME -> the ENV of NAME, as words VAR=VALUE
  local v n e
  for v in $1; do n=${v%%:*}; e=${v#*:}; [ "$v" = "$n" ] && e=""
    [ "$n" = "$2" ] && { echo "${e//,/ }"; return; }; done; }
check_probe() { # TAG PROBE "NAME:ENV...": PROBE's FP64 check of each (/tmp/r/TAG-NAME.*)
  local v n e
  for v in $3; do n=${v%%:*}; e=$(envof "$3" "$n")
    timed "$1 $n" 150 /tmp/r/$1-$n.log env $e $(binof "$e") accuracy \
      results/h200/logs/wgrad-experiments/$2 -q $pp -o /tmp/r/$1-$n.json
  done
}
checks() {
  check_probe check65537 round18/probe-65537.json "$1"
  snap "checks done"
}
checks_odd() { check_probe check round4/probe-check.json "$1"; }
gtests() {
  local v n
  for v in $1; do n=${v%%:*}
    (cd build-exp/$R && timed "gpu_test_gpu_kernels $n" 150 /tmp/o/gpu_test_gpu_kernels-$n.log \
      env $(envof "$1" "$n") ./gpu_test_gpu_kernels)
  done
  snap "gtests done"
}
binof() { # ENV words -> the BIN=PATH among them, else $B
  local w; for w in $1; do [ "${w%%=*}" = BIN ] && { echo "${w#BIN=}"; return; }; done; echo "$B"; }
v_step() { # G NAME I
  local e; e=$(envof "$V" "$2")
  timed "t$1 $2 $3" 100 /tmp/r/t$1_$2_$3.log env $e $(binof "$e") bench \
    results/h200/logs/wgrad-experiments/round23/probe-128.json $pp --iterations 200 \
    -o /tmp/r/t$1_$2_$3.json --md /tmp/r/t$1_$2_$3.md
}
variants() {
  V=$1
  interleaved "$(for v in $1; do printf '%s ' "${v%%:*}"; done)" v_step
  snap "all done"
}
