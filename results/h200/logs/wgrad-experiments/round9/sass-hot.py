#!/usr/bin/env python3
"""sass-hot.py: where run5.sh's kernels spend their instructions and their warps' stall samples.

    sass-hot.py ncu-5120/NAME-sass.csv.gz ...

For each source page (ncu --page source --print-source sass --csv): the total of instructions
executed (warp level) and of stall samples, the runs of consecutive instructions that execute
equally often (a loop body, the epilogue, ...) holding at least 1 % of the samples, and the ten
instructions with the most samples.
"""
import csv, gzip, sys


def load(path):
    rows = list(csv.reader(gzip.open(path, "rt")))
    hi = next(i for i, r in enumerate(rows) if "Source" in r)
    hdr = rows[hi]
    src, ex = hdr.index("Source"), hdr.index("Instructions Executed")
    sa = hdr.index("Warp Stall Sampling (All Samples)")
    out = []
    for r in rows[hi + 1:]:
        try:
            out.append((int(r[0], 16), int(r[ex] or 0), int(r[sa] or 0), r[src].strip()))
        except (ValueError, IndexError):
            continue
    return out


def report(path):
    data = load(path)
    total_e = sum(d[1] for d in data)
    total_s = sum(d[2] for d in data)
    print("== %s: %d instructions executed, %d stall samples" % (path, total_e, total_s))
    runs = []
    for a, e, s, x in data:
        if runs and runs[-1][0] == e:
            runs[-1][2] += s
            runs[-1][3] += 1
        else:
            runs.append([e, a, s, 1, x])
    print("   executed  instrs  offset  samples  first instruction")
    for e, a, s, n, x in runs:
        if s * 100 >= total_s:
            print("%11d  %6d  %6x  %7d  %s" % (e, n, a - data[0][0], s, x[:70]))
    print("   top instructions by samples")
    for a, e, s, x in sorted(data, key=lambda d: -d[2])[:10]:
        print("%11d  %6s  %6x  %7d  %s" % (e, "", a - data[0][0], s, x[:70]))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for p in sys.argv[1:]:
        report(p)
