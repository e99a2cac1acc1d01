#!/bin/bash
# Twenty-eighth round, call 10: cl8.cu as built for it (build-exp/cl8, carried) at N = 4096, T =
# 65537: CL8_PROBE=3 (this kernel's loops on main's grid of 128 CTAs and main's shares, no end:
# the control) and CL8_PROBE=1 (the 120 CTAs' loops, no end), each against main's op, three
# rounds each. Writes $OUT/cl8-probe*.txt.
set -u
OUT=${OUT:-/tmp/o}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > "$OUT/gpu.txt"
for P in 3 1; do
  CL8_PROBE=$P timeout 200 build-exp/cl8 65537 4096 30 3 > "$OUT/cl8-probe$P.txt" 2>&1
  echo "rc $?" >> "$OUT/cl8-probe$P.txt"
done
cat "$OUT"/gpu.txt "$OUT"/cl8-*.txt
