#!/usr/bin/env bash
# e2e_results.sh GEMMQ SOURCE_DIR: the commands that read results files, on the committed
# fixtures (tests/fixtures, made by make_fixtures.py):
#   table   Markdown and TSV byte for byte equal to tests/golden/ (two files of one part, so the
#           second file's points are repeat runs); --routes-before likewise (the route-change
#           tables against tests/golden/routes-before-plan.json);
#   plan    JSON and C equal to tests/golden/; the C table compiles with -Wall -Wextra -Werror
#           against kernels/plan.h and routes as its windows say; --diff against the golden
#           plan (no change for the same results, the changes of the regressed file);
#   plot    a PNG (magic bytes) and an SVG (an <svg> root) per shape;
#   compare an A/A pair exits 0, a planted 5 % regression exits 1 naming the point, with a JUnit
#           failure;
#   merge   refuses files of two protocols (exit 2) and writes nothing;
#   and every new command's --help.
set -u
gemmq=$1 src=$2
fixtures=$src/tests/fixtures golden=$src/tests/golden
tmp=$(mktemp -d /tmp/gemmq-e2e-results-XXXXXX)
fail=0
. "$src/tests/expect.sh"

# Outputs name their inputs: run from the fixtures folder so the names are short and stable.
cd "$fixtures" || exit 1

golden() { # golden NAME ARGS...: gemmq ARGS must print tests/golden/NAME exactly
  local name=$1; shift
  if ! "$gemmq" "$@" >"$tmp/$name" 2>"$tmp/$name.err"; then
    say_fail "gemmq $* exited $?"; cat "$tmp/$name.err"; return
  fi
  if ! cmp -s "$golden/$name" "$tmp/$name"; then
    say_fail "gemmq $* differs from tests/golden/$name:"
    diff -u "$golden/$name" "$tmp/$name" | head -40
    return
  fi
  echo "ok: gemmq $* = tests/golden/$name"
}

golden table-h200-k1.md table h200-k1.json h200-k1-fp32-b.json
golden table-h200-k1.tsv table --format tsv h200-k1.json h200-k1-fp32-b.json

# The caption says what the spans cover: the fixtures were made when they were the kernels'
# (no span_of in the method); a file that names span_of says so instead.
sed 's/"speedup":"baseline/"span_of":"kernels, memsets and copies","speedup":"baseline/' \
  h200-k1.json > "$tmp/h200-k1-span.json"
"$gemmq" table "$tmp/h200-k1-span.json" > "$tmp/span.md" 2>&1
want='CUPTI span (first start to last end of its kernels, memsets and copies)'
if grep -qF "$want" "$tmp/span.md" && ! grep -qF 'first kernel start' "$tmp/span.md" &&
   grep -qF 'CUPTI span (first kernel start to last kernel end)' "$golden/table-h200-k1.md"; then
  echo "ok: the table's caption follows the method's span_of"
else
  say_fail "the table's caption does not follow span_of:"; grep -F 'CUPTI span' "$tmp/span.md"
fi
golden plan-h200-k1.json plan h200-k1.json
golden plan-h200-k1.c plan --format c h200-k1.json
# table --routes-before: the tables of a route change, against a hand-made older plan that routed
# fp32 [1025, 1025] to the incumbent and had no fp32 [16172, 16173] window (so the regressed file
# changes one window, adds one, moves one and removes the three bf16 ones).
golden routes-h200-k1.md table h200-k1-fp32-regressed.json --routes-before "$golden/routes-before-plan.json"
golden routes-h200-k1.tsv table --format tsv h200-k1-fp32-regressed.json --routes-before "$golden/routes-before-plan.json"
expect 2 'two reports: give one' -- "$gemmq" table h200-k1.json --diagnose --routes-before "$golden/routes-before-plan.json"
expect 2 'not a gemmq plan' -- "$gemmq" table h200-k1.json --routes-before h200-k1.json
# plan --diff: the same results against their own plan change nothing; the regressed fp32 file
# (no bf16 points) moves one window and removes the three bf16 ones; --diff writes no C.
expect 0 '^Route changes: 0 moved, 0 changed program, 0 added, 0 removed; 6 unchanged\.$' -- \
  "$gemmq" plan h200-k1.json --diff "$golden/plan-h200-k1.json" --format md
expect 0 '"removed": 0' -- "$gemmq" plan h200-k1.json --diff "$golden/plan-h200-k1.json"
expect 0 '^\| moved \| h200-sm_90-132sm \| wgrad \| 4096x32 \| bf16-fp32 \| even \| \[16231, 16384\] cublaslt:heuristic \| \[16231, 16231\] cublaslt:heuristic \|$' -- \
  "$gemmq" plan h200-k1-fp32-regressed.json --diff "$golden/plan-h200-k1.json" --format md
expect 0 '1 moved, 0 changed program, 0 added, 3 removed; 2 unchanged' -- \
  "$gemmq" plan h200-k1-fp32-regressed.json --diff "$golden/plan-h200-k1.json" --format md
expect 2 'writes JSON or Markdown' -- "$gemmq" plan h200-k1.json --diff "$golden/plan-h200-k1.json" --format c
expect 2 'is the table of --diff' -- "$gemmq" plan h200-k1.json --format md
expect 2 'not a gemmq plan' -- "$gemmq" plan h200-k1.json --diff h200-k1.json

# The generated C table compiles and routes. Its windows (k_block_parity is on): fp32 and bf16
# alike, odd [1025, 1025], odd [16172, 16173], even [16231, 16384].
cat >"$tmp/route_test.c" <<'C'
#include <stdio.h>
#include <string.h>
#include "plan.h"
static int expect(long t, int fp32, const char *want)
{
	gq_plan_query q = {.part = "h200-sm_90-132sm", .allow_nondeterministic = 1};
	q.problem = (gq_problem){.op = GQ_OP_WGRAD, .d_in = 4096, .d_out = 32, .t = t,
	                         .in_dtype = GQ_DTYPE_BF16,
	                         .out_dtype = fp32 ? GQ_DTYPE_FP32 : GQ_DTYPE_BF16};
	const char *got = gq_plan_program(&q);
	if (strcmp(got, want) == 0)
		return 0;
	printf("T = %ld: %s, expected %s\n", t, got, want);
	return 1;
}
int main(void)
{
	int bad = gq_plan_route_count != 6;
	bad |= expect(1025, 1, "cublaslt:heuristic");  /* a window of one point */
	bad |= expect(16173, 1, "cublaslt:heuristic"); /* ceil(T/64) = 253, odd window */
	bad |= expect(16352, 1, "cublaslt:heuristic"); /* 256 blocks: inside the even window */
	bad |= expect(16240, 0, "cublaslt:heuristic"); /* 254 blocks, bf16 out */
	bad |= expect(16300, 1, "gemmq:det");          /* 255 blocks: odd, outside odd windows */
	bad |= expect(4031, 1, "gemmq:det");           /* slower there */
	bad |= expect(40963, 0, "gemmq:det");          /* inaccurate there */
	return bad;
}
C
if ${CC:-cc} -std=c11 -Wall -Wextra -Werror -I"$src/kernels" "$tmp/route_test.c" \
     "$tmp/plan-h200-k1.c" "$src/kernels/plan.c" -o "$tmp/route_test" 2>"$tmp/cc.err"; then
  if "$tmp/route_test"; then echo "ok: the generated plan_table.c compiles and routes"
  else say_fail "the generated plan_table.c routes wrongly"; fi
else
  say_fail "the generated plan_table.c does not compile:"; cat "$tmp/cc.err"
fi

# Plots: one PNG and one SVG per shape.
if "$gemmq" plot h200-k1.json -o "$tmp/plots" >"$tmp/plot.out" 2>&1; then
  for out in fp32 bf16; do
    base=$tmp/plots/h200-sm_90-132sm-wgrad-4096x32-bf16-$out
    magic=$(head -c 8 "$base.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
    [ "$magic" = 89504e470d0a1a0a ] || say_fail "$base.png is not a PNG (magic $magic)"
    root=$(grep -o '<[a-zA-Z][a-zA-Z0-9]*' "$base.svg" 2>/dev/null | head -1)
    [ "$root" = "<svg" ] && tail -c 16 "$base.svg" | grep -q '</svg>' ||
      say_fail "$base.svg has no <svg> root (first element '$root')"
  done
  [ "$fail" -ne 0 ] || echo "ok: gemmq plot wrote PNG and SVG"
else
  say_fail "gemmq plot exited $?"; cat "$tmp/plot.out"
fi


# compare: an A/A pair is quiet, a planted 5 % regression is caught, in Markdown and JUnit.
expect 0 '^\*\*OK\*\*: 0 latency regressions' -- "$gemmq" compare h200-k1-fp32-a.json h200-k1-fp32-b.json --junit "$tmp/aa.xml"
grep -q 'failures="0"' "$tmp/aa.xml" || say_fail "the A/A JUnit file has failures"
expect 1 '\| wgrad/4096x32/T16384/bf16-fp32 \| graph \| op \| candidate \| .* \| regression \|' -- \
  "$gemmq" compare h200-k1-fp32-a.json h200-k1-fp32-regressed.json --junit "$tmp/regressed.xml"
[ "$(grep -c '<failure' "$tmp/regressed.xml")" = 1 ] || say_fail "the regression JUnit file lacks its one failure"
expect 2 'give two results files' -- "$gemmq" compare h200-k1.json

# Two parts: the same results relabelled as measured on an H100 SXM (sm_90, 132 SMs too) are
# another part. compare refuses them unless --across-parts, which says so; merge refuses them;
# plan gives each part its own routes.
sed 's/"name": *"NVIDIA H200"/"name": "NVIDIA H100 80GB HBM3"/' h200-k1-fp32-b.json >"$tmp/h100-b.json"
sed 's/"name": *"NVIDIA H200"/"name": "NVIDIA H100 80GB HBM3"/' h200-k1.json >"$tmp/h100-k1.json"
expect 2 'h100-b.json: was measured on part h100-80gb-hbm3-sm_90-132sm, but h200-k1-fp32-a.json on part h200-sm_90-132sm: .*--across-parts' -- \
  "$gemmq" compare h200-k1-fp32-a.json "$tmp/h100-b.json"
expect 0 'Two parts.*OLD ran on `h200-sm_90-132sm`, NEW on `h100-80gb-hbm3-sm_90-132sm`' -- \
  "$gemmq" compare h200-k1-fp32-a.json "$tmp/h100-b.json" --across-parts
expect 2 'only results of one part merge' -- "$gemmq" merge h200-k1-fp32-b.json "$tmp/h100-b.json" -o "$tmp/merged.json"
"$gemmq" plan h200-k1.json "$tmp/h100-k1.json" -o "$tmp/two-parts.json"
python3 - "$tmp/two-parts.json" "$golden/plan-h200-k1.json" <<'PY' && echo "ok: plan gives each part its own routes" || say_fail "plan over two parts"
import json, sys
two, one = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
strip = lambda r: {k: v for k, v in r.items() if k != "part"}
h200 = [strip(r) for r in two["routes"] if r["part"] == "h200-sm_90-132sm"]
h100 = [strip(r) for r in two["routes"] if r["part"] == "h100-80gb-hbm3-sm_90-132sm"]
assert len(two["routes"]) == len(h200) + len(h100) == 2 * len(one["routes"]), two["routes"]
assert h200 == h100 == [strip(r) for r in one["routes"]]
PY

# merge refuses files of two protocols, and writes nothing.
expect 2 'only shards of one protocol merge' -- "$gemmq" merge h200-k1.json h200-k1-fp32-a.json -o "$tmp/merged.json"
[ ! -e "$tmp/merged.json" ] || say_fail "merge wrote a file after refusing"

# Bad input and help.
expect 2 'smoke.json: not a results file' -- "$gemmq" table "$src/protocols/smoke.json"
expect 2 'format is md or tsv' -- "$gemmq" table --format html h200-k1.json
expect 2 'give at least one results file' -- "$gemmq" plot
for c in qualify plan table plot compare merge; do
  expect 0 "usage: gemmq $c" -- "$gemmq" $c --help
done

[ "$fail" -ne 0 ] || rm -rf "$tmp"
exit $fail
