#!/usr/bin/env bash
# compare.sh OLD.log... -- NEW.log...: the speed lines of gpu_test_gpu_kernels logs, committed
# kernel (OLD) against a candidate (NEW), runs of the same H200. Per timed point: the best split
# program's time averaged over each side's logs, new / old, and each side over cuBLASLt's fastest
# (averaged over all logs); then the range of new / old per group of points and, per log, at how
# many points the goal was met. The tables of ../../../wgrad-experiments.md ("The candidates,
# measured as the harness measures") come from it:
#   compare.sh call10-old-*.log -- call10-candidate1-*.log
#   compare.sh call11-1-old-*.log call11-4-old-*.log -- call11-2-*.log call11-3-*.log
set -eu
old=() new=() side=old
for a in "$@"; do
  if [ "$a" = "--" ]; then side=new; continue; fi
  if [ "$side" = old ]; then old+=("$a"); else new+=("$a"); fi
done
if [ ${#old[@]} -eq 0 ] || [ ${#new[@]} -eq 0 ]; then
  echo "usage: compare.sh OLD.log... -- NEW.log..." >&2
  exit 2
fi
for f in "${old[@]}"; do echo "old $f"; done
for f in "${new[@]}"; do echo "new $f"; done
{ for f in "${old[@]}"; do sed "s|^|old |" "$f"; done
  for f in "${new[@]}"; do sed "s|^|new |" "$f"; done; } |
awk '
$2 == "#" && $3 == "speed" && $4 == "wgrad" {
  key = $5 " " $6 " " $7; sub(/:$/, "", key); sub(/T=/, "", key); sub(/->/, "", key)
  split($0, parts, "best split "); split(parts[2], b, " ")
  split($0, lp, "cublaslt best algo:"); split(lp[2], l, " ")
  side = $1
  sum[side, key] += b[2]; n[side, key]++
  lt[key] += l[2]; nl[key]++
  if (!(key in seen)) { seen[key] = 1; order[++k] = key }
}
$2 == "#" && $3 == "speed" && $4 == "goal" { met[$1] = met[$1] " " $(NF - 4) }
END {
  printf "%-28s %9s %9s %9s %8s %8s %8s\n", "point", "old us", "new us", "lt us", "new/old", "old/lt", "new/lt"
  for (i = 1; i <= k; i++) {
    key = order[i]
    o = sum["old", key] / n["old", key]; w = sum["new", key] / n["new", key]; c = lt[key] / nl[key]
    r = w / o
    printf "%-28s %9.1f %9.1f %9.1f %8.3f %8.3f %8.3f\n", key, o, w, c, r, o / c, w / c
    split(key, kk, " "); g = (kk[2] + 0 < 30000) ? "T = " kk[2] : "T = " kk[2] ", " kk[3] " out"
    if (!(g in lo) || r < lo[g]) lo[g] = r
    if (!(g in hi) || r > hi[g]) hi[g] = r
  }
  for (g in lo) printf "new/old at %s: %.3f to %.3f\n", g, lo[g], hi[g]
  printf "goal met (of 32), old logs:%s; new logs:%s\n", met["old"], met["new"]
}'
