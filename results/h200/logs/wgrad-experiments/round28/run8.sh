#!/bin/bash
# Twenty-eighth round, call 14: sk.cu with SK_XFIRST (build-exp/sk, carried) at N = 4096, T =
# 65537: 64 and 66 pairs, x's copies with no hint (main's) and evict-first, against main's op,
# two rounds each. Writes $OUT/sk-P-X.txt.
set -u
OUT=${OUT:-/tmp/o}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > "$OUT/gpu.txt"
for v in 66:1 66:0 64:1 64:0; do
  SK_PAIRS=${v%:*} SK_XFIRST=${v#*:} timeout 200 build-exp/sk 65537 4096 30 2 > "$OUT/sk-${v/:/-}.txt" 2>&1
  echo "rc $?" >> "$OUT/sk-${v/:/-}.txt"
done
cat "$OUT"/gpu.txt "$OUT"/sk-*.txt
