#!/usr/bin/env python3
"""homes.py: what a HOMES.bin[.gz] of l2-near.cu says about where the L2 homes a 4 KiB block.

    homes.py HOMES.bin[.gz]

Prints the mask of address bits 12-20 whose parity, flipped by one constant per 2 MiB page,
gives every measured home (searched over all masks that include bit 12), how many blocks it
misses, the pages' constants, and the best fit of those constants as a parity of address bits
21-30 (of the virtual address, and of the offset from the buffer's start).
"""
import gzip, struct, sys


def load(path):
    raw = (gzip.open if path.endswith(".gz") else open)(path, "rb").read()
    base, blocks, warm, sms = struct.unpack("<Qiii", raw[:20])
    off = 20 + 4 * sms + sms
    return base, blocks, raw[off:off + blocks]


def parity(v):
    return bin(v).count("1") & 1


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    base, blocks, home = load(sys.argv[1])
    b0 = base >> 12
    best = None
    for mask in range(1, 512, 2):  # bits 12..20 of the address, bit 12 always in
        miss = 0
        for pg in range(0, blocks, 512):
            c = home[pg] ^ parity((b0 + pg) & mask)
            miss += sum(home[b] ^ parity((b0 + b) & mask) ^ c for b in range(pg, min(blocks, pg + 512), 7))
        if best is None or miss < best[0]:
            best = (miss, mask)
        if miss == 0:
            break
    mask = best[1]
    consts, miss = [], 0
    for pg in range(0, blocks, 512):
        c = home[pg] ^ parity((b0 + pg) & mask)
        consts.append(c)
        miss += sum(home[b] ^ parity((b0 + b) & mask) ^ c for b in range(pg, min(blocks, pg + 512)))
    print("%s: base 0x%x, %d blocks, %d pages" % (sys.argv[1], base, blocks, len(consts)))
    print("home = parity of address bits %s, flipped per page; blocks it misses: %d"
          % ([12 + i for i in range(9) if mask >> i & 1], miss))
    print("the pages' constants:")
    s = "".join(map(str, consts))
    for i in range(0, len(s), 64):
        print("  " + s[i:i + 64])
    for name, p0 in (("virtual", base >> 21), ("offset", 0)):
        fit = min((sum(parity((p0 + i) & m) ^ c0 != consts[i] for i in range(len(consts))), m, c0)
                  for m in range(1 << 10) for c0 in (0, 1))
        print("best parity of %s address bits %s: %d of %d pages wrong"
              % (name, [21 + i for i in range(10) if fit[1] >> i & 1], fit[0], len(consts)))


if __name__ == "__main__":
    main()
