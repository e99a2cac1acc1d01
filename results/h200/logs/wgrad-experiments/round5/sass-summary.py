#!/usr/bin/env python3
"""sass-summary.py: what ncu-sass.sh's source pages say about how cuBLASLt's kernels copy and
multiply: per kernel its launch (grid, block, cluster, registers, shared memory) and, with their
executed counts (warp level), the instructions that copy (UTMALDG, UTMASTG), multiply (HGMMA),
wait on or arrive at barriers (SYNCS, DEPBAR, BAR) and set registers (USETMAXREG).

    sass-summary.py DIR   (DIR: ncu-sass.sh's /tmp/r: <t>-details.txt and <t>-sass.csv)
"""
import csv, os, re, sys

KEEP = re.compile(r"UTMA|HGMMA|SYNCS|DEPBAR|BAR\.|USETMAXREG|ATOMG|EXIT")
LAUNCH = re.compile(r"Block Size|Grid Size|Cluster Size|Cluster Scheduling|Registers Per Thread|"
                    r"Dynamic Shared Memory Per Block")


def summary(d, t):
    rows = list(csv.reader(open(os.path.join(d, t + "-sass.csv"))))
    print("== %s: %s" % (t, rows[0][1]))
    for line in open(os.path.join(d, t + "-details.txt")):
        if LAUNCH.search(line):
            print("   " + " ".join(line.split()))
    hdr = rows[1]
    src, ex = hdr.index("Source"), hdr.index("Instructions Executed")
    for r in rows[2:]:
        if len(r) > ex and (r[ex] or "0") != "0" and KEEP.search(r[src]):
            print("%9s  %s" % (r[ex], r[src].strip()))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for t in sorted({f.rsplit("-sass.csv", 1)[0] for f in os.listdir(sys.argv[1])
                     if f.endswith("-sass.csv")}):
        summary(sys.argv[1], t)
