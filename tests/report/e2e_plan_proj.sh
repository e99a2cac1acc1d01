#!/usr/bin/env bash
# e2e_plan_proj.sh GEMMQ SOURCE_DIR: the per-head projections through the reports. Two proj_fwd
# shapes that differ only in their heads (2x64x32 and 1x64x32, out_in), qualified on the host
# backend (tests/protocols/e2e/plan-proj.json): the table shows each with its heads and layout;
# the JSON plan has one route per shape, naming heads and weight_layout; the C table, whose
# gq_route has no heads, leaves both out with a comment and counts 0 routes; --diff of the plan
# against itself changes nothing.
set -u
gemmq=$1 src=$2
tmp=$(mktemp -d /tmp/gemmq-e2e-plan-proj-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
say_fail() { echo "FAIL: $*"; fail=1; }
"$gemmq" qualify --device host -q "$src/tests/protocols/e2e/plan-proj.json" -o "$tmp/r.json" \
  >/dev/null 2>&1 || say_fail "qualify exited $?"
"$gemmq" table "$tmp/r.json" >"$tmp/t.md" || say_fail "table"
grep -q '| proj_fwd 2x64x32 out_in | 5 |' "$tmp/t.md" || say_fail "the table lacks the 2-head shape"
grep -q '| proj_fwd 1x64x32 out_in | 5 |' "$tmp/t.md" || say_fail "the table lacks the 1-head shape"
"$gemmq" plan "$tmp/r.json" -o "$tmp/plan.json" || say_fail "plan"
python3 - "$tmp/plan.json" <<'PY' || say_fail "the JSON plan"
import json, sys
routes = json.load(open(sys.argv[1]))["routes"]
shapes = sorted((r["op"], r["heads"], r["weight_layout"], r["d_in"], r["d_out"]) for r in routes)
assert shapes == [("proj_fwd", 1, "out_in", 64, 32), ("proj_fwd", 2, "out_in", 64, 32)], shapes
assert all(r["t_min"] == 5 and r["t_max"] == 9 for r in routes), routes
PY
"$gemmq" plan "$tmp/r.json" --format c >"$tmp/plan.c" || say_fail "plan --format c"
grep -q 'proj_fwd 2x64x32 out_in, bf16 in, T 5..9 -> host:ref: in the JSON plan only' "$tmp/plan.c" ||
  say_fail "the C table does not say the 2-head route is left out"
grep -q 'gq_plan_route_count = 0;' "$tmp/plan.c" || say_fail "the C table counts routes it left out"
"$gemmq" plan "$tmp/r.json" --diff "$tmp/plan.json" -o "$tmp/diff.json" || say_fail "plan --diff"
python3 - "$tmp/diff.json" <<'PY' || say_fail "--diff of the plan against itself"
import json, sys
d = json.load(open(sys.argv[1]))
changes = d.get("changes", d)
kinds = [c.get("change") for c in changes] if isinstance(changes, list) else []
assert len(kinds) == 2 and all(k == "unchanged" for k in kinds), d
# each new route is matched by the old route of its own heads alone
assert all(len(c["old"]) == 1 for c in changes), changes
PY
[ $fail -eq 0 ] && echo "ok: proj shapes kept apart by table and plan"
exit $fail
