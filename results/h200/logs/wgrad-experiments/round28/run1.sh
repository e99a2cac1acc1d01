#!/bin/bash
# Twenty-eighth round, call 1: the two ends of a split program at d_out 128 with nothing else in
# the kernel (insm.cu; build-exp/insm built as its header says, carried). Writes $OUT/insm.txt.
set -u
OUT=${OUT:-/tmp/o}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,clocks.sm,power.draw,temperature.gpu --format=csv > "$OUT/gpu.txt"
build-exp/insm 200 > "$OUT/insm.txt" 2>&1
echo "rc $?" >> "$OUT/insm.txt"
build-exp/insm 200 > "$OUT/insm-2.txt" 2>&1
echo "rc $?" >> "$OUT/insm-2.txt"
cat "$OUT/gpu.txt" "$OUT/insm.txt" "$OUT/insm-2.txt"
