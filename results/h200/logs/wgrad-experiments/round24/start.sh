# start.sh: sourced by this round's run*.sh (from the repository root) with c and R set: unpacks
# build-exp/$R.txz through ../round22/start.sh (B: build-exp/$R/gemmq; `timed`, `interleaved`,
# `snap`), and defines, for the split programs n256:s4 and n320:s4 (pp):
#   checks "SETTING..." "SETTING...": the FP64 check at T = 65537 (../round18/probe-65537.json)
#     with GQX_DYN=SETTING, the first list on GPU 0 and the second on GPU 1 at once, one after
#     the other on GPU 0 where the machine has one GPU (/tmp/r/check65537-SETTING.*);
#   variants "NAME:SETTING[:BINARY]...": probe-128.json of round 23, 200 timed replays, every
#     NAME with GQX_DYN=SETTING (none where empty) and BINARY (default $B), interleaved, twice,
#     on each GPU (/tmp/r/tG_NAME_I.*).
. results/h200/logs/wgrad-experiments/round22/start.sh
pp="-p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
gpus=$(nvidia-smi -L | wc -l)
chk() { # GPU SETTING
  CUDA_VISIBLE_DEVICES=$1 GQX_DYN=$2 timed "check65537 g$1 $2" 100 /tmp/r/check65537-$2.log $B \
    accuracy results/h200/logs/wgrad-experiments/round18/probe-65537.json -q $pp \
    -o /tmp/r/check65537-$2.json
}
checks() {
  local s
  if [ "$gpus" -ge 2 ]; then
    (for s in $1; do chk 0 "$s"; done) &
    (for s in $2; do chk 1 "$s"; done) &
    wait
  else
    for s in $1 $2; do chk 0 "$s"; done
  fi
  snap "checks done"
}
dyn_step() { # G NAME I (the NAME's entry of $V)
  local v n e b
  for v in $V; do IFS=: read -r n e b <<< "$v"; [ "$n" = "$2" ] && break; done
  GQX_DYN=$e timed "t$1 $2 $3" 100 /tmp/r/t$1_$2_$3.log "${b:-$B}" bench \
    results/h200/logs/wgrad-experiments/round23/probe-128.json $pp \
    --iterations 200 -o /tmp/r/t$1_$2_$3.json --md /tmp/r/t$1_$2_$3.md
}
variants() {
  V=$1
  interleaved "$(for v in $1; do printf '%s ' "${v%%:*}"; done)" dyn_step
  snap "all done"
}
