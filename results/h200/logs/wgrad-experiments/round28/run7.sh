#!/bin/bash
# Twenty-eighth round, calls 12 and 13: sk.cu with SK_PERM (build-exp/sk, carried) at N = 4096, T = 65537:
# 65 and 66 pairs, and 66 with the chunks permuted (SK_PERM=17) (call 12), or the pairs in
# $V (call 13: V="62:1 63:1"), against main's op, two rounds
# each. Writes $OUT/sk-*.txt.
set -u
OUT=${OUT:-/tmp/o}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > "$OUT/gpu.txt"
for v in ${V:-65:1 66:1 66:17}; do
  SK_PAIRS=${v%:*} SK_PERM=${v#*:} timeout 200 build-exp/sk 65537 4096 30 2 > "$OUT/sk-${v/:/-}.txt" 2>&1
  echo "rc $?" >> "$OUT/sk-${v/:/-}.txt"
done
cat "$OUT"/gpu.txt "$OUT"/sk-*.txt
