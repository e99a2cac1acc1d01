#!/usr/bin/env bash
# check_layers.sh SOURCE_DIR: scripts/check-layers passes on the tree, and fails on copies of it
# with a planted upward include (util/ including a verdict header), with a planted include of a
# later stage from a header (protocol/ including accuracy.h) and with a folder whose README lost
# its "May include" line, naming the file, the line and the rule each time.
set -u
src=$1
tmp=$(mktemp -d /tmp/gemmq-check-layers-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/expect.sh"

expect 0 'every include goes down the pipeline' -- python3 "$src/scripts/check-layers" "$src"

plant() { # plant NAME: a fresh copy of the layer folders in $tmp/NAME
  mkdir -p "$tmp/$1"
  cp -r "$src/harness" "$src/reference" "$src/kernels" "$tmp/$1/"
}
plant up
printf '#include "verdict.h"\n' >>"$tmp/up/harness/util/stats.c"
n=$(wc -l <"$tmp/up/harness/util/stats.c")
expect 1 "harness/util/stats.c:$n: includes \"verdict.h\" of harness/verdict/" -- \
  python3 "$src/scripts/check-layers" "$tmp/up"

plant header
sed -i 's/#include "status.h"/#include "status.h"\n#include "accuracy.h"/' "$tmp/header/harness/protocol/protocol.h"
expect 1 'protocol/protocol.h:[0-9]+: includes "accuracy.h" of harness/accuracy/' -- \
  python3 "$src/scripts/check-layers" "$tmp/header"

plant readme
sed -i '/^May include:/d' "$tmp/readme/harness/timing/README.md"
expect 2 "harness/timing/README.md: no line 'May include" -- \
  python3 "$src/scripts/check-layers" "$tmp/readme"
exit $fail
