#!/usr/bin/env bash
# run8.sh: twenty-third round, calls 16 and later (an H200 ×2 each), from the repository root:
#   C=N bash results/h200/logs/wgrad-experiments/round23/run8.sh   (writes $OUT/all.tgz at the end)
# run7.sh's build (./gemmq-pad, GQX_PAD) and the layout probe (build-exp/r22l.txz). On each GPU at
# once: probe-128.json with n128:s4, n256:s4, n320:s4, 200 timed replays, no pad (rG_m); where
# n256:s4 takes more than 139.8 µs at 4096x128, T = 65537, FP32 out (an H200 like call 5's
# GPU 1), the same with GQX_PAD = 1, 2, 4, 8 (idle clusters before the grid) and -2 (after it),
# then no pad again (rG_P), and the layout probe (layout-gG.txt); FORCE=G does so on GPU G anyway.
c=${C:?give the call number in C}
tar xJf build-exp/r22l.txz
R=h23e
. results/h200/logs/wgrad-experiments/round22/start.sh
pp="-p gemmq:split:n128:s4 -p gemmq:split:n256:s4 -p gemmq:split:n320:s4"
bench_pad() { # G TAG [PAD]
  if [ -n "${3:-}" ]; then export GQX_PAD=$3; else unset GQX_PAD; fi
  timed "r$1 $2" 100 /tmp/r/r$1_$2.log ./gemmq-pad bench results/h200/logs/wgrad-experiments/round23/probe-128.json \
    $pp --iterations 200 -q -o /tmp/r/r$1_$2.json --md /tmp/r/r$1_$2.md
}
slow() { # G: 0 when n256:s4 is slow at 4096x128, T = 65537, FP32 out
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open("/tmp/r/r%s_m.json" % sys.argv[1]))
t = [q["median_us"] for p in d["points"] if p["d_in"] == 4096 and p["out"] == "fp32"
     for q in p["programs"] if q["program"] == "gemmq:split:n256:s4"][0]
print("GPU", sys.argv[1], "n256:s4", t)
sys.exit(0 if t > 139.8 else 1)
PY
}
for g in 0 1; do
  (
    export CUDA_VISIBLE_DEVICES=$g
    bench_pad $g m
    if slow $g >> /tmp/o/runs.txt || [ "${FORCE:-}" = $g ]; then
      for p in 1 2 4 8 -2; do bench_pad $g p$p $p; done
      bench_pad $g m2
      timed "layout g$g" 60 /tmp/o/layout-g$g.txt build-exp/r22l/layout
    fi
  ) &
done
wait
snap "all done"
