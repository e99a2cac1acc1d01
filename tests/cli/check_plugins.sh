#!/usr/bin/env bash
# check_plugins.sh GEMMQ SOURCE_DIR EXAMPLE_PLUGIN BAD_ABI_PLUGIN V1_PLUGIN
# The example plugin passes accuracy on the host backend next to host:ref, bitwise stable; a
# plugin built for the next ABI version, and one built for version 1 (before the proj ops), are
# refused (exit 2) with both versions named.
set -u
gemmq=$1 src=$2 example=$3 bad=$4 v1=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$gemmq" accuracy --device host -q -p host:ref -p "plugin:$example:naive" \
  -o "$tmp/r.json" "$src/tests/protocols/e2e/host-split.json" >"$tmp/out" 2>&1
rc=$?
if [ $rc -ne 0 ]; then echo "FAIL: example plugin run exited $rc"; cat "$tmp/out"; fail=1; fi
# Every point: the plugin's record passes and is bitwise stable (6 points).
n=$(grep -A8 "\"program\": \"plugin:$example:naive\"" "$tmp/r.json" | grep -c '"status": "pass"')
s=$(grep -A12 "\"program\": \"plugin:$example:naive\"" "$tmp/r.json" | grep -c '"bitwise_stable": true')
if [ "$n" -ne 6 ] || [ "$s" -ne 6 ]; then echo "FAIL: plugin passed $n of 6 points, stable at $s"; fail=1; fi
out=$("$gemmq" accuracy --device host -q -p "plugin:$bad:anything" "$src/tests/protocols/e2e/host-split.json" -o "$tmp/bad.json" 2>&1)
rc=$?
if [ $rc -ne 2 ]; then echo "FAIL: wrong-ABI plugin exited $rc, expected 2"; echo "$out"; fail=1; fi
if ! grep -q "ABI version 3, gemmq expects 2" <<<"$out"; then echo "FAIL: message lacks both versions: $out"; fail=1; fi
out1=$("$gemmq" accuracy --device host -q -p "plugin:$v1:old" "$src/tests/protocols/e2e/host-split.json" -o "$tmp/v1.json" 2>&1)
rc=$?
if [ $rc -ne 2 ]; then echo "FAIL: version-1 plugin exited $rc, expected 2"; echo "$out1"; fail=1; fi
if ! grep -q "ABI version 1, gemmq expects 2" <<<"$out1"; then echo "FAIL: message lacks both versions: $out1"; fail=1; fi
[ $fail -eq 0 ] && echo "ok: example plugin qualified; wrong ABI refused: $out; version 1 refused: $out1"
exit $fail
