#!/usr/bin/env python3
"""ends.py: what the thirteenth round read from call 2's traces (traces-call2.tgz, unpacked into
the current directory: traces/trace-T-NxM-n<bn>-<k>.txt, written by drift.cu with DRIFT_DIR):
for each named case, per traced launch, the mean and last end, whether a CTA's pace in the first
half of its share predicts its pace in the second, the slowest and fastest CTAs (SM, split z,
tile t, L2 half h), and how well the CTAs' ends agree between launches.

    tar xzf traces-call2.tgz && python3 ends.py 65537-4096x128-n128 65537-5120x128-n128
"""
import statistics as st
import sys


def corr(a, b):
    ma, mb = st.mean(a), st.mean(b)
    sa = sum((x - ma) ** 2 for x in a) ** .5
    sb = sum((y - mb) ** 2 for y in b) ** .5
    return sum((x - ma) * (y - mb) for x, y in zip(a, b)) / (sa * sb) if sa and sb else 0


def load(path):
    return [line.split() for line in open(path) if not line.startswith('#')]


for name in sys.argv[1:]:
    print('==', name)
    ends = []
    for r in range(3):
        rows = load(f'traces/trace-{name}-{r}.txt')
        cta = [int(x[0]) for x in rows]
        sm = [int(x[1]) for x in rows]
        half = [int(x[3]) for x in rows]
        split = [int(x[4]) for x in rows]
        end = [float(x[6]) for x in rows]
        ms = [[float(v) for v in x[7:]] for x in rows]
        ends.append(end)
        n = len(ms[0])
        first = [m[n // 2] - m[0] for m in ms]
        second = [m[-1] - m[n // 2] for m in ms]
        tiles = len(cta) // (max(split) + 1)
        tile = [c % tiles for c in cta]
        print(f' launch {r}: end mean {st.mean(end):.1f} last {max(end):.1f}; '
              f'corr(pace in the first half, in the second) {corr(first, second):.2f}')
        for label, key in (('slowest', lambda i: -end[i]), ('fastest', lambda i: end[i])):
            idx = sorted(range(len(end)), key=key)[:8]
            print(f'   {label}:', ' '.join(
                f'c{cta[i]}(sm{sm[i]},z{split[i]},t{tile[i]},h{half[i]}) {end[i]:.1f}'
                for i in idx))
    print(' ends between launches: corr', round(corr(ends[0], ends[1]), 2),
          round(corr(ends[0], ends[2]), 2), round(corr(ends[1], ends[2]), 2))
