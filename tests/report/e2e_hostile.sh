#!/usr/bin/env bash
# e2e_hostile.sh GEMMQ SOURCE_DIR: results files from someone else are not trusted. Each case is a
# committed results file (results/h200/calibration/slow-10.json) with one field made hostile:
#   a candidate name carrying '"', a newline and a gnuplot `system` call: plot refuses it (exit 2,
#     file:line:column and JSON path) and no command runs;
#   device.arch "../../x": plot refuses it and writes nothing outside -o DIR;
#   T = 0: plot exits 2 naming the point's t, not 3 with gnuplot's text;
#   a huge T: plan exits 2 (no overflow in the K-block parity);
#   huge process counters: merge exits 2 (no overflow in their sum);
#   an ANSI escape in a program name, and in a path that reaches a message as it is: the message
#     shows it escaped, no raw control byte, no forged line;
#   a string where d_in's integer belongs; JSON that does not parse; no format_version, or one
#     newer than gemmq reads: each named for what it is;
# and plan over a file without a qualified point exits 0 with no route (no NULL to qsort).
set -u
gemmq=$1 src=$2
tmp=$(mktemp -d /tmp/gemmq-e2e-hostile-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/expect.sh"
base=$src/results/h200/calibration/slow-10.json

# mutate NAME PYTHON: $tmp/NAME.json is base with the Python statement applied to d
mutate() {
  python3 - "$base" "$tmp/$1.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
}

mkdir -p "$tmp/work" && cd "$tmp/work" || exit 1

mutate inject 'd["points"][0]["verdict"]["candidate"] = "x\"\nsystem \"touch '"$tmp"'/PWNED\"\n#"'
expect 2 'inject.json:[0-9]+:[0-9]+: \$\.points\[0\]\.verdict\.candidate: expected a program name' -- \
  "$gemmq" plot "$tmp/inject.json" -o "$tmp/plots-inject"
[ ! -e "$tmp/PWNED" ] || say_fail "a command from the results file ran"
[ ! -e "$tmp/plots-inject" ] || say_fail "plot wrote files for a refused results file"

mutate arch 'd["device"]["arch"] = "../../x"'
mkdir -p "$tmp/a/b"
expect 2 '\$\.device\.arch: expected "host" or an architecture' -- \
  "$gemmq" plot "$tmp/arch.json" -o "$tmp/a/b/plots"
[ -z "$(find "$tmp" -name 'x-*')" ] || say_fail "plot wrote outside -o DIR: $(find "$tmp" -name 'x-*')"

mutate t0 'd["points"][0]["t"] = 0'
expect 2 '\$\.points\[0\]\.t: expected at least 1, found the integer 0' -- \
  "$gemmq" plot "$tmp/t0.json" -o "$tmp/plots-t0"

mutate hugeT 'd["points"][0]["t"] = 9223372036854775807'
expect 2 '\$\.points\[0\]\.t: expected at most 10000000, found the integer 9223372036854775807' -- \
  "$gemmq" plan "$tmp/hugeT.json"

mutate counters 'd["timing"]["processes"][0]["workers"] = 9223372036854775807'
expect 2 '\$\.timing\.processes\[0\]\.workers: expected at most 1000000, found the integer' -- \
  "$gemmq" merge "$tmp/counters.json" "$base" -o "$tmp/merged.json"
[ ! -e "$tmp/merged.json" ] || say_fail "merge wrote a file from refused input"

mutate ansi 'd["points"][0]["verdict"]["incumbent"] = "gemmq:det\u001b[2J\nok: forged"'
out=$("$gemmq" table "$tmp/ansi.json" 2>&1)
if [ $? -ne 2 ]; then say_fail "table of a name with an ANSI escape did not exit 2"; fi
if printf '%s' "$out" | grep -q $'\x1b'; then say_fail "a raw escape byte reached the output"; fi
if printf '%s\n' "$out" | grep -q '^ok: forged'; then say_fail "a file forged a line of output"; fi
if grep -qi '\\u001b\[2J\\nok: forged' <<<"$out"; then
  echo "ok: an ANSI escape and a newline in a name are shown escaped"
else
  say_fail "the name is not shown escaped: $out"
fi
# a name that reaches a message as it is (a file's path): its control characters escaped
out=$("$gemmq" table "$tmp/no"$'\x1b[2J\n'"ok: forged.json" 2>&1)
if printf '%s' "$out" | grep -q $'\x1b' || printf '%s\n' "$out" | grep -q '^ok: forged'; then
  say_fail "a path's control characters reached the output raw: $out"
elif grep -q 'no\\x1b\[2J\\nok: forged.json' <<<"$out"; then
  echo "ok: a path's control characters are escaped in the message"
else
  say_fail "the path is not shown escaped: $out"
fi

mutate string 'd["points"][0]["d_in"] = "5120"'
expect 2 '\$\.points\[0\]\.d_in: expected type "integer", found the string "5120"' -- \
  "$gemmq" table "$tmp/string.json"

printf '{"kind": "gemmq-results",\n "format_version": 1,,\n}\n' >"$tmp/syntax.json"
expect 2 'syntax.json:2:[0-9]+: not valid JSON' -- "$gemmq" compare "$tmp/syntax.json" "$base"

# An error in the protocol a results file holds is placed in the file by its full JSON path (the
# parser's line and column would be those of a re-serialization).
mutate embedded 'd["meta"]["protocol"]["content"]["accuracy"]["seeds"] = 0'
expect 2 'embedded.json: \$\.meta\.protocol\.content\.accuracy\.seeds: seeds must be an integer from 1' -- \
  "$gemmq" merge "$tmp/embedded.json" -o "$tmp/merged-embedded.json"

mutate noversion 'del d["format_version"]'
expect 2 'without "format_version"' -- "$gemmq" table "$tmp/noversion.json"
mutate future 'd["format_version"] = 3'
expect 2 'format_version 3 \(this gemmq reads versions 1 to 2\)' -- "$gemmq" table "$tmp/future.json"

# slow-10 has no qualified point, so no route: plan must say so and exit 0
expect 0 '"routes": \[\]' -- "$gemmq" plan "$base"
expect 0 'gq_plan_routes' -- "$gemmq" plan --format c "$base"
exit $fail
