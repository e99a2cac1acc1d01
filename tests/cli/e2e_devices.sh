#!/usr/bin/env bash
# e2e_devices.sh GEMMQ SOURCE_DIR: gemmq qualify (and accuracy, time) --devices on the host backend (host:0,host:1:
# two shards, each a process of its own on its own CPUs), against an unsharded run of the same
# protocol (tests/protocols/e2e/qualify-host.json):
#   - the merged file is complete, lists both shards (ok, with their CPUs and point counts,
#     which add up to the protocol's), and every point's accuracy (program statuses and the
#     output hash of every seed) and verdict equal the unsharded run's where accuracy decides
#     them (the planted host:wrong:1: inaccurate); elsewhere both runs give a timing verdict;
#   - one shard killed mid-run: the other finishes, the merged file marks only the killed
#     shard's unfinished points lost with verdict error (exit 1); the same command again resumes
#     that shard only and the file then equals the unsharded run as above, with nothing lost;
#   - gemmq time --devices: every point timed once, merged complete; finished shards kept on a
#     second run;
#   - gemmq accuracy --devices -p A -p B: the same records as one run with those programs;
#   - bad lists and option mixes are refused (exit 2) with the reason.
set -u
gemmq=$1 src=$2
proto=$src/tests/protocols/e2e/qualify-host.json
tmp=$(mktemp -d /tmp/gemmq-e2e-devices-XXXXXX)
trap 'pkill -f "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/expect.sh"

# compare MERGED SINGLE [lost]: the checks above; with "lost", the points of the killed shard
# that it had not finished must be lost and error, the rest as in SINGLE.
compare() {
  python3 - "$@" <<'PY'
import json, sys
merged, single = (json.load(open(p)) for p in sys.argv[1:3])
lost_expected = len(sys.argv) > 3
bad = []
devices = merged["meta"]["devices"]
if [d["shard"] for d in devices] != ["0/2", "1/2"]:
    bad.append(f"shards {[d['shard'] for d in devices]}")
if sum(d["points"] for d in devices) != len(single["points"]):
    bad.append("the shards' point counts do not add up to the protocol's")
if any(not d["cpus"] or d["blas_threads"] < 1 for d in devices):
    bad.append(f"a shard without CPUs: {devices}")
status = [d["status"] for d in devices]
lost = 0
for m, s in zip(merged["points"], single["points"]):
    mv, sv = (m.get("verdict") or {}).get("status"), (s.get("verdict") or {}).get("status")
    if "lost" in m:
        lost += 1
        if not lost_expected or mv != "error" or "not measured" not in m["verdict"]["summary"]:
            bad.append(f"{m['id']}: lost {m['lost']} with verdict {mv}")
        continue
    if not m["accuracy"]["done"]:
        bad.append(f"{m['id']}: accuracy not done and not lost"); continue
    ma = [(r["program"], r["status"], [x["output_fnv1a64"] for x in r.get("seeds", [])]) for r in m["accuracy"]["programs"]]
    sa = [(r["program"], r["status"], [x["output_fnv1a64"] for x in r.get("seeds", [])]) for r in s["accuracy"]["programs"]]
    if ma != sa:
        bad.append(f"{m['id']}: accuracy {ma} != unsharded {sa}")
    if sv == "inaccurate" or mv == "inaccurate":
        if mv != sv: bad.append(f"{m['id']}: verdict {mv} != unsharded {sv}")
    elif mv not in ("qualified", "inconclusive", "slower") or sv not in ("qualified", "inconclusive", "slower"):
        bad.append(f"{m['id']}: verdicts {mv} / unsharded {sv} are not timing verdicts")
if lost_expected:
    if status != ["ok", "failed"] or lost == 0:
        bad.append(f"expected shard 1 failed with lost points: statuses {status}, {lost} lost")
    if merged["meta"]["complete"]:
        bad.append("a file with lost points says it is complete")
else:
    if status != ["ok", "ok"] or lost or not merged["meta"]["complete"]:
        bad.append(f"statuses {status}, {lost} lost, complete {merged['meta']['complete']}")
print("\n".join(bad) if bad else f"ok: {len(merged['points'])} points compared, {lost} lost")
sys.exit(1 if bad else 0)
PY
}

# The unsharded run.
"$gemmq" qualify "$proto" --device host -q -o "$tmp/single.json" >/dev/null 2>&1
[ -s "$tmp/single.json" ] || { say_fail "the unsharded run wrote nothing"; exit 1; }

# Two shards at once.
expect 1 'gemmq qualify: e2e-qualify-host: 6 points: .* 2 inaccurate, 0 error, 0 pending' -- \
  "$gemmq" qualify "$proto" --devices host:0,host:1 -o "$tmp/two.json"
compare "$tmp/two.json" "$tmp/single.json" || say_fail "--devices host:0,host:1 differs from the unsharded run"
for i in 0 1; do
  grep -q "accuracy \[" "$tmp/two.shards/shard-${i}of2.log" ||
    say_fail "shard $i's log lacks its progress"
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["meta"]["shard"]; sys.exit(s["assign"] != "cost")' \
    "$tmp/two.shards/shard-${i}of2.json" || say_fail "shard $i's file does not say its points were assigned by cost"
done
"$gemmq" check-results "$tmp/two.json" >/dev/null || say_fail "the merged file fails check-results"

# One shard killed while it times: the other finishes; its points are lost, then resumed.
out=$tmp/killed.out
"$gemmq" qualify "$proto" --devices host:0,host:1 -o "$tmp/k.json" >"$out" 2>&1 &
parent=$!
for _ in $(seq 1 300); do
  grep -q "timing \[" "$tmp/k.shards/shard-1of2.log" 2>/dev/null && break
  sleep 0.1
done
pkill -9 -f -- "--shard 1/2 -o $tmp/k.shards" || say_fail "no shard 1 process to kill"
wait "$parent"
rc=$?
[ "$rc" -eq 1 ] || { say_fail "the run with a killed shard exited $rc, expected 1"; cat "$out"; }
grep -q 'shard 1/2 on device host:1 failed (signal 9' "$out" || { say_fail "the killed shard is not reported"; cat "$out"; }
compare "$tmp/k.json" "$tmp/single.json" lost || say_fail "the file of the run with a killed shard"
"$gemmq" check-results "$tmp/k.json" >/dev/null || say_fail "the file with lost points fails check-results"
expect 1 'resuming|6 points: .* 0 error, 0 pending' -- \
  "$gemmq" qualify "$proto" --devices host:0,host:1 -o "$tmp/k.json"
grep -q 'resuming' "$tmp/k.shards/shard-1of2.log" || say_fail "shard 1 did not resume its file"
compare "$tmp/k.json" "$tmp/single.json" || say_fail "the resumed file differs from the unsharded run"

# gemmq time --devices: every point timed by one shard, the merged file complete; run again,
# both finished shards are kept, not timed again.
tproto=$src/tests/protocols/e2e/time-host.json
expect 0 'gemmq time: e2e-time-host: 4 points timed, 0 with errors, 0 lost' -- \
  "$gemmq" time "$tproto" --devices host:0,host:1 -o "$tmp/t.json"
python3 - "$tmp/t.json" <<'PY' || say_fail "the merged time file"
import json, sys
d = json.load(open(sys.argv[1]))
pts = d["timing"]["points"]
assert d["meta"]["complete"] and d["meta"]["command"] == "time", d["meta"]
assert len(pts) == 4 and all(p["status"] == "ok" for p in pts), [p["status"] for p in pts]
assert [e["status"] for e in d["meta"]["devices"]] == ["ok", "ok"]
assert sorted(m["shard"]["index"] for m in d["meta"]["merged_from"]) == [0, 1]
print("ok: the merged time file has every point timed")
PY
expect 0 'shard 1/2: finished earlier, kept' -- \
  "$gemmq" time "$tproto" --devices host:0,host:1 -o "$tmp/t.json"

# gemmq accuracy --devices, its -p going to every shard: the same records as one run.
expect 0 'gemmq accuracy: e2e-qualify-host: 6 points done of 6, 0 lost; programs: 12 pass' -- \
  "$gemmq" accuracy "$proto" --devices host:0,host:1 -p host:ref -p host:split -o "$tmp/a.json"
"$gemmq" accuracy "$proto" --device host -p host:ref -p host:split -q -o "$tmp/a1.json" >/dev/null
python3 - "$tmp/a.json" "$tmp/a1.json" <<'PY' || say_fail "accuracy --devices differs from one run"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
rec = lambda d: [(p["id"], [(r["program"], r["status"], [x["output_fnv1a64"] for x in r.get("seeds", [])])
                            for r in p["accuracy"]["programs"]]) for p in d["points"]]
assert rec(a) == rec(b), (rec(a), rec(b))
assert a["meta"]["complete"] and a["meta"]["command"] == "accuracy"
print("ok: accuracy --devices records equal one run's")
PY

# Refusals.
expect 2 'named twice' -- "$gemmq" qualify "$proto" --devices host:0,host:0 -o "$tmp/x.json"
expect 2 'do not mix' -- "$gemmq" qualify "$proto" --devices host:0,1 -o "$tmp/x.json"
expect 2 'each device is a number' -- "$gemmq" qualify "$proto" --devices gpu0 -o "$tmp/x.json"
expect 2 'without --device, --shard or --raw-dir' -- \
  "$gemmq" qualify "$proto" --devices host:0,host:1 --shard 0/2 -o "$tmp/x.json"
[ ! -e "$tmp/x.json" ] || say_fail "a refused run wrote its file"
expect 0 'devices LIST\|all' -- "$gemmq" qualify --help
expect 0 'devices LIST\|all' -- "$gemmq" time --help
expect 0 'devices LIST\|all' -- "$gemmq" accuracy --help
expect 2 'without --device or --shard' -- "$gemmq" accuracy "$proto" --devices host:0 --shard 0/2
# A repeated --reference is taken once (the last) for the shards, not piled up.
many=(); for _ in $(seq 200); do many+=(--reference openblas); done
expect 2 'named twice' -- "$gemmq" accuracy "$proto" --devices host:0,host:0 "${many[@]}"
expect 2 'without --device, --shard or --raw-dir' -- "$gemmq" time "$tproto" --devices host:0 --raw-dir "$tmp/r"

exit $fail
