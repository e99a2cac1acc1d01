#!/bin/bash
# Twenty-eighth round, call 19: tail.cu (build-exp/tail, built as its header says, carried):
# its outputs against main's at T = 1025 and 16173, then at T = 65537 main's op and this one
# (D = kb/33 in whole rounds), both N, three rounds, and 4096 with TAIL_D in $DS. Writes
# $OUT/tail-*.txt.
set -u
OUT=${OUT:-/tmp/o}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > "$OUT/gpu.txt"
for T in 1025 16173; do
  timeout 120 build-exp/tail $T 0 1 0 > "$OUT/tail-$T.txt" 2>&1; echo "rc $?" >> "$OUT/tail-$T.txt"
done
timeout 250 build-exp/tail 65537 0 30 3 > "$OUT/tail-65537.txt" 2>&1; echo "rc $?" >> "$OUT/tail-65537.txt"
for D in ${DS:-15 60}; do
  TAIL_D=$D timeout 120 build-exp/tail 65537 4096 30 2 > "$OUT/tail-d$D.txt" 2>&1
  echo "rc $?" >> "$OUT/tail-d$D.txt"
done
cat "$OUT"/gpu.txt "$OUT"/tail-*.txt
