#!/bin/bash
# Twenty-eighth round, call 15: sk.cu with SK_LOCK (build-exp/sk, carried), 64 pairs (main's
# schedule), T = 65537, both N: no lock, then the 32 CTAs of each quarter of K kept within S
# epochs of E K-blocks of each other (E,S in $LOCKS), against main's op, two rounds each. Writes
# $OUT/sk-lock-*.txt.
set -u
OUT=${OUT:-/tmp/o}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > "$OUT/gpu.txt"
for v in none ${LOCKS:-8,2 16,1 4,4 32,1}; do
  if [ "$v" = none ]; then unset SK_LOCK; else export SK_LOCK=$v; fi
  SK_PAIRS=64 timeout 200 build-exp/sk 65537 0 30 2 > "$OUT/sk-lock-${v/,/-}.txt" 2>&1
  echo "rc $?" >> "$OUT/sk-lock-${v/,/-}.txt"
done
cat "$OUT"/gpu.txt "$OUT"/sk-lock-*.txt
