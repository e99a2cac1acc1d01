#!/bin/bash
# Twenty-eighth round, call 11: sk.cu (build-exp/sk, built as its header says, carried): its
# outputs against main's at T = 1025 and 16173, then at T = 65537 main's op and sk's timed with 66
# pairs (132 CTAs) and with 64 (128, main's count: the control), both N. Writes $OUT/sk-*.txt.
set -u
OUT=${OUT:-/tmp/o}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > "$OUT/gpu.txt"
for T in 1025 16173; do
  timeout 120 build-exp/sk $T 0 1 0 > "$OUT/sk-$T.txt" 2>&1; echo "rc $?" >> "$OUT/sk-$T.txt"
done
for P in 66 64; do
  SK_PAIRS=$P timeout 250 build-exp/sk 65537 0 ${L:-30} ${ROUNDS:-3} > "$OUT/sk-65537-p$P.txt" 2>&1
  echo "rc $?" >> "$OUT/sk-65537-p$P.txt"
done
cat "$OUT"/gpu.txt "$OUT"/sk-*.txt
