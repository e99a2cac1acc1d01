#!/usr/bin/env python3
"""l2-halves.py: what an OUT.bin of l2-halves.cu holds.

    l2-halves.py OUT.bin[.gz] [SM ...]

Prints the SMs measured and the SM that warmed the lines, the percentiles of every latency per
pass, and for each SM asked (default: the first) the count of lines in each latency class
(< 100, 100-379, >= 380 cycles) by line index modulo 4, then the classes of its first 64 lines.

Then the halves, from pass 0 of call 14's run, whose loop the compiler had unrolled by four: the
latency of line i then depends on i % 4 (about 20, 230, 230 and 530 cycles), so line 4k is not
read and a line at 4k + 1 or 4k + 2 counts as far at 330 cycles or more, at 4k + 3 at 700 or
more. Printed: the SMs that see over 5 % of the lines far and the others, whether the first
group agrees line by line, the far lines among the first 256, and the largest power-of-two
block of lines that is never split between near and far.
"""
import array, collections, gzip, struct, sys


def load(path):
    raw = (gzip.open if path.endswith(".gz") else open)(path, "rb").read()
    sms, lines = struct.unpack("ii", raw[:8])
    off = 8
    ids = array.array("i", raw[off:off + 4 * sms])
    off += 4 * sms
    warm = array.array("i", raw[off:off + 4 * sms])
    off += 4 * sms
    lat = array.array("H", raw[off:])
    return sms, lines, ids, warm, lat


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sms, lines, ids, warm, lat = load(sys.argv[1])
    row = lambda p, s: lat[(p * sms + s) * lines:(p * sms + s + 1) * lines]
    cls = lambda v: 0 if v < 100 else (1 if v < 380 else 2)
    print("%d SMs x %d lines; warmed on SM(s) %s" % (sms, lines, sorted(set(warm))))
    for p in range(2):
        v = sorted(lat[p * sms * lines:(p + 1) * sms * lines])
        print("pass %d, percentiles 1/10/25/50/75/90/99 (cycles):" % p,
              [v[int(len(v) * q)] for q in (0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99)])
    for a in sys.argv[2:] or ["%d" % ids[0]]:
        s = list(ids).index(int(a))
        for p in range(2):
            r = row(p, s)
            by = [dict(collections.Counter(cls(r[i]) for i in range(k, lines, 4)))
                  for k in range(4)]
            print("SM %s pass %d, classes by line %% 4: %s" % (a, p, by))
            print("   first 64 lines: " + "".join(str(cls(x)) for x in r[:64]))
    halves(sms, lines, ids, row)


def halves(sms, lines, ids, row):
    def far(s):
        r = row(0, s)
        return {i: r[i] >= (700 if i % 4 == 3 else 330) for i in range(lines) if i % 4}
    fars = [far(s) for s in range(sms)]
    read = len(fars[0])
    other = [s for s in range(sms) if sum(fars[s].values()) * 20 > read]  # over 5 % far
    same = [s for s in range(sms) if s not in other]
    print("SMs that see over 5 %% of the lines far (%d): %s"
          % (len(other), [ids[s] for s in other]))
    print("the others (%d), far lines each %s: %s" % (len(same), sorted(set(sum(fars[s].values())
          for s in same)), [ids[s] for s in same]))
    if not other:
        return
    ref = fars[other[0]]
    agree = min(sum(fars[s][i] == ref[i] for i in ref) for s in other)
    print("far lines per SM of the first group: %s of %d read; every SM of it agrees with SM %d "
          "on %d of them" % (sorted(set(sum(fars[s].values()) for s in other)), len(ref),
                             ids[other[0]], agree))
    print("lines 0-255, 1 far, 0 near, . not read:")
    marks = "".join("." if i not in ref else "1" if ref[i] else "0" for i in range(min(256, lines)))
    for k in range(0, len(marks), 64):
        print("   " + marks[k:k + 64])
    g = 1
    while g * 2 <= lines:
        blocks = collections.defaultdict(set)
        for i, f in ref.items():
            blocks[i // (g * 2)].add(f)
        if any(len(v) > 1 for v in blocks.values()):
            break
        g *= 2
    print("blocks of %d lines (%d bytes) are all near or all far; of %d, some are split"
          % (g, g * 128, g * 2))


if __name__ == "__main__":
    main()
