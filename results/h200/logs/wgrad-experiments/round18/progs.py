#!/usr/bin/env python3
"""progs.py: the per-program tables of wgrad-experiments.md, "Eighteenth round".

    progs.py tsv BENCH.json...          every program's median per run and point (stdout; run =
                                        the file's name without .json)
    progs.py table programs.tsv[.gz] RUN...  at the d_out 128 points with T >= 40963, per out dtype,
                                        the median over each RUN_N's runs of cuBLASLt's fastest
                                        of its top 8 (in the first RUN) and of each split program
"""
import gzip, json, statistics, sys
from collections import defaultdict


def tsv(files):
    print("run\td_in\td_out\tT\tout\tprogram\tmedian_us")
    for f in files:
        run = f.split("/")[-1].rsplit(".", 1)[0]
        for p in json.load(open(f))["points"]:
            for q in p["programs"]:
                if q["status"] == "ok":
                    print("%s\t%d\t%d\t%d\t%s\t%s\t%.3f" % (run, p["d_in"], p["d_out"], p["t"],
                          p["out"], q["program"], q["median_us"]))


def table(path, builds):
    t = defaultdict(list)
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as fh:
        next(fh)
        for line in fh:
            run, d_in, d_out, T, out, prog, us = line.rstrip("\n").split("\t")
            t[(run.rsplit("_", 1)[0], int(d_in), int(d_out), int(T), out, prog)].append(float(us))
    splits = sorted({k[5] for k in t if k[5].startswith("gemmq:split:")},
                    key=lambda s: (int(s.split(":")[2][1:]), s))
    print("| build | point | cuBLASLt | " + " | ".join(s[12:] for s in splits) + " |")
    print("|---|---|---:|" + "---:|" * len(splits))
    points = sorted({k[1:5] for k in t if k[2] == 128 and k[3] >= 40963})
    for b in builds:
        for pt in points:
            lt = [statistics.median(v) for k, v in t.items()
                  if k[0] == builds[0] and k[1:5] == pt and k[5].startswith("cublaslt:algo:")]
            cells = []
            for s in splits:
                v = t.get((b,) + pt + (s,))
                cells.append("%.1f" % statistics.median(v) if v else "")
            print("| %s | %dx%d T=%d %s | %.1f | %s |" % (b, pt[0], pt[1], pt[2], pt[3],
                  min(lt), " | ".join(cells)))


if __name__ == "__main__":
    if sys.argv[1] == "tsv":
        tsv(sys.argv[2:])
    else:
        table(sys.argv[2], sys.argv[3:])
