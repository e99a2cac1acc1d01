#!/usr/bin/env bash
# run5.sh: thirty-sixth round, call 5 (one H200), from the repository root:
#   bash results/h200/logs/wgrad-experiments/round36/run5.sh
# Builds round36/mapbytes.c on the device and prints the encoded maps' first 64 bytes.
set -u
d=results/h200/logs/wgrad-experiments/round36
cc -O2 -I/usr/local/cuda/include $d/mapbytes.c -o /tmp/mapbytes -L/usr/local/cuda/lib64/stubs \
  -lcuda && /tmp/mapbytes | tee $OUT/mapbytes.txt
