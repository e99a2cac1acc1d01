#!/usr/bin/env bash
# slurm_cluster.sh GEMMQ SOURCE_DIR: scripts/slurm/ on a real Slurm cluster, started here.
#
# Starts a one-node cluster in a temporary folder: slurmctld and slurmd of Debian's packages
# (slurmctld, slurmd, slurm-client; scripts/test installs them) as plain background processes,
# auth/none, free ports, run as the current user; the node has this machine's CPUs and two fake
# GPUs (gres files that are links to /dev/null), so each task's --gpus-per-task=1 is allocated
# for real and Slurm sets its CUDA_VISIBLE_DEVICES. Then:
#   1. scripts/slurm/submit tests/protocols/e2e/slurm.json --shards 4 with GEMMQ_DEVICE=host:
#      a 4-task array (2 points a task, 2 tasks at a time) and the merge job after it; every
#      task and the merge job must complete with exit code 0, each task with one of the two
#      GPUs in its CUDA_VISIBLE_DEVICES;
#   2. the merged verdicts and plan must equal those of one unsharded gemmq qualify of the
#      protocol (compare_runs.py says what must be equal and what differs legitimately). Its
#      verdicts are decided by accuracy (the planted host:wrong:1 and host:unwritten) or by
#      a timing rule no host noise can flip (min_speedup 1e-6, no A/A band): these ops last
#      microseconds, and on a loaded machine a twin's speedup interval has been seen as wide
#      as [0.025, 38], so any real threshold would make the two runs disagree by chance;
#   3. the table, the C plan table and (with gnuplot) the plots are written;
#   4. with shard 3's file lost, the same submit again: tasks 0 to 2 resume their finished
#      files, task 3 measures its shard anew, and the merge comes out the same;
#   5. merge.sbatch (run outside Slurm) fails with exit 2, naming what is wrong, when a shard
#      file is missing and when a shard's points are not finished (leaving that merge as
#      <name>.partial.json, not as the results).
# Teardown in a trap: scancel, wait for an empty queue, stop the daemons, remove the folder.
# Exit status 77 (ctest: skipped) with the reason where Slurm is not installed; any failure
# prints the daemons' and jobs' logs.
set -euo pipefail
gemmq=$1 src=$2
proto=$src/tests/protocols/e2e/slurm.json
export PATH=$PATH:/usr/sbin:/sbin
for c in slurmctld slurmd sbatch scontrol squeue sinfo scancel; do
  if ! command -v "$c" >/dev/null; then
    echo "SKIPPED: Slurm is not installed here (no $c): scripts/test installs slurmctld," \
         "slurmd and slurm-client with apt, which needs root or sudo"
    exit 77
  fi
done

T=$(mktemp -d "${TMPDIR:-/tmp}/gemmq-slurm.XXXXXX")
ctld= slurmd=
fail() { echo "FAIL: $*" >&2; exit 1; }
# until_true SECONDS WHAT COMMAND...: run COMMAND every 0.2 s until it succeeds; false after
# SECONDS.
until_true() {
  local limit=$1 what=$2 deadline=$((SECONDS + $1))
  shift 2
  until "$@"; do
    [ $SECONDS -lt $deadline ] || { echo "timed out after $limit s waiting for $what"; return 1; }
    sleep 0.2
  done
}
queue_empty() { [ -z "$(squeue -h 2>/dev/null)" ]; }
cleanup() {
  local status=$?
  set +e
  if [ -n "$ctld" ]; then
    scancel --user="$(id -un)" 2>/dev/null
    until_true 30 "an empty queue" queue_empty
  fi
  [ -z "$slurmd" ] || kill "$slurmd"
  [ -z "$ctld" ] || kill "$ctld"
  wait
  if [ "$status" -ne 0 ] && [ "$status" -ne 77 ]; then
    for f in "$T"/log/* "$T"/out/logs/*; do
      [ -f "$f" ] && { echo "--- $f"; tail -n 40 "$f"; }
    done
  fi
  rm -rf "$T"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The cluster.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("", 0))
print(*(x.getsockname()[1] for x in s))')
mkdir -p "$T/state" "$T/spool" "$T/log" "$T/dev" "$T/jobs"
ln -s /dev/null "$T/dev/fakegpu0"
ln -s /dev/null "$T/dev/fakegpu1"
user=$(id -un)
node=$(slurmd -C | head -1 | sed 's/^NodeName=[^ ]*/NodeName=ci-node/')
cat >"$T/slurm.conf" <<EOF
ClusterName=gemmq-ci
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SchedulerParameters=batch_sched_delay=0
DependencyParameters=kill_invalid_depend
GresTypes=gpu
$node NodeAddr=127.0.0.1 Gres=gpu:fake:2 State=UNKNOWN
PartitionName=ci Nodes=ci-node Default=YES MaxTime=INFINITE State=UP
EOF
echo "NodeName=ci-node Name=gpu Type=fake File=$T/dev/fakegpu[0-1]" >"$T/gres.conf"
export SLURM_CONF=$T/slurm.conf
slurmctld -D -i >"$T/log/slurmctld.out" 2>&1 &
ctld=$!
slurmd -D -N ci-node >"$T/log/slurmd.out" 2>&1 &
slurmd=$!
node_idle() { [ "$(sinfo -h -N -o %T 2>/dev/null)" = idle ]; }
until_true 30 "the node to be idle" node_idle || fail "the cluster did not come up (logs below)"
echo "cluster up: slurmctld on port $ctld_port, slurmd on $slurmd_port, $node, 2 fake GPUs"

# 1. The array and the merge job; meanwhile, the unsharded run.
cd "$T/jobs"
out=$T/out
submit() { # prints "ARRAY MERGE", the ids that scripts/slurm/submit printed
  local said
  said=$(GEMMQ=$gemmq GEMMQ_DEVICE=host "$src/scripts/slurm/submit" "$proto" --shards 4 \
         --dir "$out" -t 10) || fail "scripts/slurm/submit failed"
  echo "$said" >&2
  local ids
  ids="$(sed -n 's/^qualify: job array \([0-9]*\),.*/\1/p' <<<"$said") $(sed -n 's/^merge: job \([0-9]*\),.*/\1/p' <<<"$said")"
  [[ $ids =~ ^[0-9]+\ [0-9]+$ ]] || fail "scripts/slurm/submit printed no job ids"
  echo "$ids"
}
states() { scontrol show job "$1" | grep -o 'JobState=[A-Z_]*' | sed 's/JobState=//' | sort | uniq -c | xargs; }
settled() { ! states "$1" | grep -qE 'PENDING|RUNNING|CONFIGURING|COMPLETING|REQUEUED|SUSPENDED'; }
wait_for_jobs() { # ARRAY MERGE TASKS
  until_true 180 "job $2" settled "$2" || fail "job $2 did not end in 180 s"
  [ "$(states "$1")" = "$3 COMPLETED" ] || fail "array $1: tasks $(states "$1"), not $3 COMPLETED"
  [ "$(states "$2")" = "1 COMPLETED" ] || fail "merge job $2: $(states "$2"), not COMPLETED"
  local codes
  codes=$({ scontrol show job "$1"; scontrol show job "$2"; } | grep -o ' ExitCode=[0-9:]*' | sort | uniq -c | xargs)
  [ "$codes" = "$(($3 + 1)) ExitCode=0:0" ] ||
    fail "jobs $1 and $2 exited with $codes, not $(($3 + 1)) ExitCode=0:0"
  echo "jobs ended: array $1 and merge $2 COMPLETED, exit code 0 (${SECONDS} s)"
}
ids=$(submit)
read -r array merge <<<"$ids"
rc=0
"$gemmq" qualify "$proto" --device host -o "$T/unsharded.json" -q || rc=$?
[ "$rc" -le 1 ] || fail "the unsharded gemmq qualify exited with $rc"
"$gemmq" plan "$T/unsharded.json" -o "$T/unsharded-plan.json"
wait_for_jobs "$array" "$merge" 4
for i in 0 1 2 3; do
  log=$out/logs/qualify-${array}_$i.log
  grep -q "shard $i/4 of e2e-slurm .*CUDA_VISIBLE_DEVICES=[01], device host" "$log" ||
    fail "$log does not show shard $i/4 on one GPU (CUDA_VISIBLE_DEVICES 0 or 1)"
  [ -f "$out/e2e-slurm-shard${i}of4.json" ] || fail "no shard file $i of 4"
done

# 2. The same verdicts and plan as the unsharded run.
same_as_unsharded() {
  python3 "$src/tests/slurm/compare_runs.py" "$T/unsharded.json" "$out/e2e-slurm.json" \
    "$T/unsharded-plan.json" "$out/e2e-slurm-plan.json" ||
    fail "the merged results differ from the unsharded run's (above)"
}
same_as_unsharded

# 3. The reports.
grep -q '^| *host ' "$out/e2e-slurm.md" || fail "$out/e2e-slurm.md holds no table row"
grep -q 'cal:twin:host:ref' "$out/e2e-slurm-plan_table.c" ||
  fail "$out/e2e-slurm-plan_table.c routes nothing to cal:twin:host:ref"
if command -v gnuplot >/dev/null; then
  ls "$out"/e2e-slurm.plots/*.png >/dev/null || fail "no plots in $out/e2e-slurm.plots"
fi

# 4. Shard 3's file lost, the same submit again: tasks 0 to 2 resume their finished files, task 3
# measures its shard anew, the merge is the same. Meanwhile, 5.
mkdir "$T/first" "$T/broken"
cp "$out"/e2e-slurm-shard*of4.json "$out/e2e-slurm-plan.json" "$T/first/"
cp "$out"/e2e-slurm-shard[012]of4.json "$T/broken/"
rm "$out/e2e-slurm-shard3of4.json"
ids=$(submit)
read -r array merge <<<"$ids"

# 5. merge.sbatch, outside Slurm, refuses a missing or an unfinished shard.
expect_refusal() { # WHAT MESSAGE
  rc=0
  GEMMQ=$gemmq bash "$src/scripts/slurm/merge.sbatch" "$proto" 4 "$T/broken" >"$T/merge.out" \
    2>&1 || rc=$?
  [ "$rc" -eq 2 ] && grep -qF "$2" "$T/merge.out" ||
    { cat "$T/merge.out"; fail "merge.sbatch with $1: exit $rc, wanted 2 and '$2'"; }
}
expect_refusal "shard 3 missing" "no results file of shard(s) 3 of 4 in $T/broken"
cp "$T/broken/e2e-slurm-shard0of4.json" "$T/broken/e2e-slurm-shard3of4.json"
expect_refusal "shard 3 unfinished" "a shard stopped before its end"
[ ! -e "$T/broken/e2e-slurm.json" ] && [ -f "$T/broken/e2e-slurm.partial.json" ] ||
  fail "merge.sbatch left an unfinished merge as e2e-slurm.json, not e2e-slurm.partial.json"
echo "merge.sbatch refuses a missing and an unfinished shard"

wait_for_jobs "$array" "$merge" 4
log=$out/logs/qualify-${array}_
for i in 0 1 2; do
  grep -q "resuming .*: accuracy of 2 points kept; timing complete, kept as it was" "$log$i.log" &&
    ! grep -q 'accuracy \[' "$log$i.log" || fail "task $i did not resume its finished shard"
  # A resumed file differs in meta only (meta.resumed, the times).
  python3 -c '
import json, sys
x, y = (json.load(open(f)) for f in sys.argv[1:])
x.pop("meta"); y.pop("meta")
sys.exit(x != y)' "$T/first/e2e-slurm-shard${i}of4.json" "$out/e2e-slurm-shard${i}of4.json" ||
    fail "shard $i's finished file was measured again"
done
! grep -q "resuming" "${log}3.log" && grep -q 'accuracy \[2/2\]' "${log}3.log" ||
  fail "task 3 did not measure its shard anew"
same_as_unsharded
cmp -s "$T/first/e2e-slurm-plan.json" "$out/e2e-slurm-plan.json" || fail "the plan changed"
echo "submitted again: shards 0 to 2 resumed finished, 3 measured anew, the same verdicts and plan"
echo "PASS (${SECONDS} s)"
