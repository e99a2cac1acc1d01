#!/bin/bash
# Twenty-eighth round, call 7: main's gemmq (build-exp/r28/gemmq, 6f29099, carried) benches
# probe-120.json twice: do n256:s4 and n320:s4 take longer per byte of x on a grid of 120 CTAs
# (d_in 3840, 4800) than on one of 128 (4096, 5120)? Writes $OUT/p120-*.{json,md,log}.
set -u
OUT=${OUT:-/tmp/o}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid --format=csv,noheader > "$OUT/gpu.txt"
for i in 1 2; do
  timeout 200 build-exp/r28/gemmq bench results/h200/logs/wgrad-experiments/round28/probe-120.json \
    -p gemmq:split:n256:s4 -p gemmq:split:n320:s4 --iterations 200 \
    -o "$OUT/p120-$i.json" --md "$OUT/p120-$i.md" > "$OUT/p120-$i.log" 2>&1
  echo "rc $?" >> "$OUT/p120-$i.log"
done
cat "$OUT/gpu.txt" "$OUT"/p120-*.log
