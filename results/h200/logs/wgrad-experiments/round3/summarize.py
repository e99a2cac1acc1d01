#!/usr/bin/env python3
"""summarize.py: the tables of wgrad-experiments.md, "Third round", from variants.tsv.

    summarize.py tsv BENCH.json...   write variants.tsv (stdout) from the bench JSONs of run.sh
    summarize.py table variants.tsv  per variant: points where the best gemmq:split is as fast as
                                     cuBLASLt's fastest of its top 8, and medians of the ratios
"""
import json, statistics, sys
from collections import defaultdict


def tsv(files):
    print("run\td_in\td_out\tT\tout\tbest_split\tsplit_us\tcublaslt_algo\tcublaslt_us")
    for f in files:
        run = f.split("/")[-1].rsplit(".", 1)[0]
        for p in json.load(open(f))["points"]:
            ok = [q for q in p["programs"] if q["status"] == "ok"]
            sp = min((q["median_us"], q["program"]) for q in ok if q["family"] == "split")
            lt = min((q["median_us"], q["program"]) for q in ok
                     if q["program"].startswith("cublaslt:algo:"))
            print("%s\t%d\t%d\t%d\t%s\t%s\t%.3f\t%s\t%.3f" % (run, p["d_in"], p["d_out"], p["t"],
                  p["out"], sp[1], sp[0], lt[1], lt[0]))


def table(path):
    rows = defaultdict(dict)
    with open(path) as fh:
        next(fh)
        for line in fh:
            run, d_in, d_out, t, out, _, s, _, l = line.rstrip("\n").split("\t")
            rows[run][(int(d_in), int(d_out), int(t), out)] = (float(s), float(l))
    runs = list(rows)
    base = rows[runs[0]]
    print("| run | goal met (of %d) | split / cuBLASLt, median: all | T = 65537 | T ≤ 16384 "
          "| split / %s's split at T ≥ 40963: median (range) |" % (len(base), runs[0]))
    print("|---|---:|---:|---:|---:|---|")
    for run in runs:
        r = rows[run]
        ratio = lambda keep: statistics.median(r[k][0] / r[k][1] for k in r if keep(k))
        vs = [r[k][0] / base[k][0] for k in r if k[2] >= 40963]
        print("| %s | %d | %.3f | %.3f | %.3f | %.3f (%.3f–%.3f) |" % (
            run, sum(1 for k in r if r[k][0] <= r[k][1]), ratio(lambda k: True),
            ratio(lambda k: k[2] == 65537), ratio(lambda k: k[2] <= 16384),
            statistics.median(vs), min(vs), max(vs)))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "tsv":
        tsv(sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "table":
        table(sys.argv[2])
    else:
        sys.exit(__doc__)
