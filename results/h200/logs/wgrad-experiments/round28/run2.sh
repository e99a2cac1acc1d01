#!/bin/bash
# Twenty-eighth round, call 6: cl8.cu (build-exp/cl8, built as its header says, carried): its
# outputs against main's at T = 1025, 16173 and 65537, then both ends timed at T = 65537.
# Writes $OUT/cl8-*.txt.
set -u
OUT=${OUT:-/tmp/o}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > "$OUT/gpu.txt"
for T in 1025 16173; do
  timeout 120 build-exp/cl8 $T ${N:-0} 1 0 > "$OUT/cl8-$T.txt" 2>&1; echo "rc $?" >> "$OUT/cl8-$T.txt"
done
timeout 300 build-exp/cl8 65537 ${N:-0} ${L:-30} ${ROUNDS:-3} > "$OUT/cl8-65537.txt" 2>&1
echo "rc $?" >> "$OUT/cl8-65537.txt"
cat "$OUT"/gpu.txt "$OUT"/cl8-*.txt
