#!/usr/bin/env python3
"""probe.py: the medians (µs) of chosen programs at each point of bench JSONs (plain or .gz).

    python3 round23/probe.py [-p PROGRAM]... FILE.json[.gz]...

One line per file and point: the GPU's uuid (first 8 hex digits), the point, cuBLASLt's fastest
of its top 8 (algo index, and from its config the tile and split-K), then each PROGRAM's median
(default: gemmq:split:n256:s4, n128:s4, n320:s4). With --ratio FILE0 FILE1: program by program,
FILE1's median over FILE0's at each common point.
"""
import gzip
import json
import re
import sys


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def medians(pt):
    return {q["program"]: q.get("median_us") for q in pt["programs"] if q.get("status") == "ok"}


def key(pt):
    return "%dx%d T=%d %s" % (pt["d_in"], pt["d_out"], pt["t"], pt["out"])


def main(argv):
    progs, files, ratio = [], [], False
    i = 0
    while i < len(argv):
        if argv[i] == "-p":
            progs.append(argv[i + 1])
            i += 2
        elif argv[i] == "--ratio":
            ratio = True
            i += 1
        else:
            files.append(argv[i])
            i += 1
    if not files:
        sys.exit(__doc__)
    if ratio:
        a, b = load(files[0]), load(files[1])
        pb = {key(p): medians(p) for p in b["points"]}
        for p in a["points"]:
            ma, mb = medians(p), pb.get(key(p), {})
            print(key(p))
            for name in ma:
                if name in mb and ma[name] and mb[name]:
                    print("  %-24s %8.1f %8.1f  %+.1f %%" % (name, ma[name], mb[name],
                                                            100 * (mb[name] / ma[name] - 1)))
        return
    progs = progs or ["gemmq:split:n256:s4", "gemmq:split:n128:s4", "gemmq:split:n320:s4"]
    for path in files:
        d = load(path)
        uuid = d["device"].get("uuid", "?")[:8]
        for p in d["points"]:
            m = medians(p)
            lt = min((v, k) for k, v in m.items() if k.startswith("cublaslt:algo:"))
            cfg = next(q.get("config", "") for q in p["programs"] if q["program"] == lt[1])
            tile = re.search(r"tile (\d+)", cfg)
            splitk = re.search(r"splitK (\d+)", cfg)
            print("%s %s %-22s LT %6.1f (%s%s)  %s" % (
                uuid, path.split("/")[-1], key(p), lt[0], lt[1].split(":")[-1],
                " tile %s splitK %s" % (tile.group(1), splitk.group(1)) if tile and splitk else "",
                "  ".join("%s %.1f" % (n.replace("gemmq:split:", ""), m[n]) for n in progs if m.get(n))))


if __name__ == "__main__":
    main(sys.argv[1:])
