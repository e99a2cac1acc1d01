#!/bin/bash
# Twenty-eighth round, calls 16 to 18: insm.cu, cl8.cu and sk.cu as committed after their helpers
# were shared (insm.cu's stamps and stores of the sums; seg.h's bench, producer and atomic adds;
# build-exp/insm, cl8 and sk, carried): the same figures as calls 5, 6, 11 and 15? insm with 200
# ops; cl8 and sk at T = 1025 and, one round, 65537 (sk with 64 and 66 pairs, and 64 with
# SK_LOCK=32,1), N = 4096. Call 16's insm had lost its stamps to a slip in that sharing (fixed;
# call 17 ran insm alone: ONLY=insm); call 18 ran all three as committed, with the SK_LOCK step,
# which calls 16 and 17 did not have. Writes $OUT/v-*.txt.
set -u
OUT=${OUT:-/tmp/o}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > "$OUT/gpu.txt"
timeout 120 build-exp/insm 200 > "$OUT/v-insm.txt" 2>&1; echo "rc $?" >> "$OUT/v-insm.txt"
[ "${ONLY:-}" = insm ] && { cat "$OUT"/gpu.txt "$OUT"/v-insm.txt; exit 0; }
for T in 1025 65537; do
  timeout 120 build-exp/cl8 $T 4096 30 1 > "$OUT/v-cl8-$T.txt" 2>&1; echo "rc $?" >> "$OUT/v-cl8-$T.txt"
done
for P in 64 66; do
  SK_PAIRS=$P timeout 120 build-exp/sk 1025 4096 30 0 > "$OUT/v-sk-$P-1025.txt" 2>&1
  echo "rc $?" >> "$OUT/v-sk-$P-1025.txt"
  SK_PAIRS=$P timeout 120 build-exp/sk 65537 4096 30 1 > "$OUT/v-sk-$P-65537.txt" 2>&1
  echo "rc $?" >> "$OUT/v-sk-$P-65537.txt"
done
[ "${LOCK:-1}" = 1 ] && { SK_PAIRS=64 SK_LOCK=32,1 timeout 120 build-exp/sk 65537 4096 30 1 \
  > "$OUT/v-sk-lock.txt" 2>&1; echo "rc $?" >> "$OUT/v-sk-lock.txt"; }
cat "$OUT"/gpu.txt "$OUT"/v-*.txt
