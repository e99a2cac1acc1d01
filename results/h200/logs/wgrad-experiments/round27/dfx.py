#!/usr/bin/env python3
"""dfx.py: the per-launch summary of call 2's and call 3's traces (`python3 dfx.py o/trace-*.log`,
in a record unpacked from call2.txz or call3.txz).

Each DFX line is one consumer warpgroup of one CTA: grid x, y, z, warpgroup, whether the CTA
finished its tile, its producer's %globaltimer after issuing its last copy ("loop", ns), then, in
ns after that: the producer's checks of the counters ("chk", -1 where not made), the counts they
saw ("seen", hex, 16 * first block + second), the warpgroup's last multiply ("mul"), the producer's
choice ("ready"), its count ("count") and its end; call 3's build adds "red", the adds' own time
(staging to the TMA unit's adds done). Launches are told apart by gaps of more than 50 µs between
the producers' times. Per launch: how far apart the last multiplies are, the medians of count -
mul and ready - mul, and per 64-row block the gap between the last two splits' last multiplies.
"""
import statistics as st
import sys


def rows_of(paths):
    rows = []
    for f in paths:
        for line in open(f):
            if not line.startswith('DFX'):
                continue
            t = line.split()
            loop = int(t[8])
            cnt = int(t[24])
            rows.append(dict(x=int(t[1]), y=int(t[2]), z=int(t[3]), wg=int(t[4]), loop=loop,
                             mul=loop + int(t[20]), ready=loop + int(t[22]),
                             cnt=loop + cnt if cnt >= 0 else None, end=loop + int(t[26])))
    return rows


def launches_of(rows):
    rows.sort(key=lambda r: r['loop'])
    out, cur = [], []
    for r in rows:
        if cur and r['loop'] - cur[-1]['loop'] > 50000:
            out.append(cur)
            cur = []
        cur.append(r)
    if cur:
        out.append(cur)
    return out


def main(paths):
    for L in launches_of(rows_of(paths)):
        t0 = min(r['mul'] for r in L)
        muls = sorted(r['mul'] - t0 for r in L)
        blocks = {}
        for r in L:
            blocks.setdefault((r['x'], r['y'], r['wg']), []).append(r['mul'])
        gaps = [sorted(v)[-1] - sorted(v)[-2] for v in blocks.values() if len(v) > 1]
        counted = [r['cnt'] - r['mul'] for r in L if r['cnt']]
        print(f"{len(L)} warpgroups: last multiplies {muls[-1] / 1000:.2f} us apart; "
              f"count - mul median {st.median(counted) / 1000:.2f} us; "
              f"ready - mul median {st.median(r['ready'] - r['mul'] for r in L) / 1000:.2f} us; "
              f"last two splits of a block: median {st.median(gaps) / 1000:.2f} us, "
              f"max {max(gaps) / 1000:.2f} us; end {(max(r['end'] for r in L) - t0) / 1000:.2f} us")


if __name__ == '__main__':
    main(sys.argv[1:])
