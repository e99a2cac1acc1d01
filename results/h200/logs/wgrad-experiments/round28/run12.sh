#!/bin/bash
# Twenty-eighth round, call 20: cl8.cu, sk.cu and tail.cu as committed after the consumers' view
# of the ring (seg_ring_of) and the pair grid's plan and launch (seg_pair_plan, seg_pair_launch)
# moved into seg.h (build-exp/cl8, sk and tail, carried): the same outputs and figures as calls
# 18 and 19? Each at T = 16173 and, one round, 65537, N = 4096 (sk with 64 and 66 pairs).
# Writes $OUT/w-*.txt.
set -u
OUT=${OUT:-/tmp/o}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > "$OUT/gpu.txt"
for v in cl8: sk:64 sk:66 tail:; do
  b=${v%:*} P=${v#*:}
  for T in 16173 65537; do
    f="$OUT/w-$b$P-$T.txt"
    SK_PAIRS=${P:-66} timeout 120 build-exp/$b $T 4096 30 $([ $T = 65537 ] && echo 1 || echo 0) > "$f" 2>&1
    echo "rc $?" >> "$f"
  done
done
cat "$OUT"/gpu.txt "$OUT"/w-*.txt
