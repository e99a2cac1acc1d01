#!/usr/bin/env bash
# Usage: check_invalid_protocol.sh GEMMQ CASE_DIR
# CASE_DIR/protocol.json must be refused by `gemmq check-protocol` with exit status 2, and every
# non-empty line of CASE_DIR/expected.txt must appear in its stderr.
set -u
gemmq=$1 dir=$2
stderr=$("$gemmq" check-protocol "$dir/protocol.json" 2>&1 >/dev/null)
status=$?
if [ "$status" -ne 2 ]; then
  echo "FAIL: exit status $status, expected 2; stderr:"; echo "$stderr"; exit 1
fi
while IFS= read -r line || [ -n "$line" ]; do
  [ -z "$line" ] && continue
  if ! grep -qF -- "$line" <<<"$stderr"; then
    echo "FAIL: stderr lacks: $line"; echo "stderr was:"; echo "$stderr"; exit 1
  fi
done <"$dir/expected.txt"
echo "ok: $stderr"
