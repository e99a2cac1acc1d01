#!/bin/bash
# Twenty-eighth round, calls 8 and 9: cl8.cu as built for each (build-exp/cl8, carried) at N = 4096, T =
# 65537: its whole op, then with CL8_PROBE=1 (clusters of 2 along M as main's, the end left out)
# to time the rest, and (call 9) with CL8_PROBE=2 (segment A on tile c, no hot columns), each
# against main's op, three rounds each. Writes $OUT/cl8-*.txt.
set -u
OUT=${OUT:-/tmp/o}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > "$OUT/gpu.txt"
timeout 200 build-exp/cl8 65537 4096 30 3 > "$OUT/cl8-cl8.txt" 2>&1; echo "rc $?" >> "$OUT/cl8-cl8.txt"
for P in 1 2; do CL8_PROBE=$P timeout 200 build-exp/cl8 65537 4096 30 3 > "$OUT/cl8-probe$P.txt" 2>&1; echo "rc $?" >> "$OUT/cl8-probe$P.txt"; done
cat "$OUT"/gpu.txt "$OUT"/cl8-*.txt
