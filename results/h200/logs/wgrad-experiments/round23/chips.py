#!/usr/bin/env python3
"""chips.py: the speed goal of issue 3 per H200, from bench JSONs (gemmq bench, plain or .gz).

    python3 round23/chips.py FILE.json[.gz]...

For every file: the GPU's uuid (first 8 hex digits), the build's git sha, the timed replays, and at
how many of the 96 memory-bound points (wgrad, d_in 4096 or 5120, d_out <= 128, T >= 16173) the
best gemmq:split is at least as fast as cuBLASLt's fastest (summary.over_cublaslt_best.split_best
<= 1). Then one line per GPU: its runs' counts. A file of k1_wgrad's 240 points counts the same 96.
"""
import gzip
import json
import sys
from collections import OrderedDict


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def membound(p):
    return (p["op"] == "wgrad" and p["d_in"] in (4096, 5120) and p["d_out"] <= 128
            and p["t"] >= 16173)


def main(paths):
    per_gpu = OrderedDict()
    for path in paths:
        d = load(path)
        pts = [p for p in d["points"] if membound(p)]
        met = sum(1 for p in pts
                  if (p["summary"]["over_cublaslt_best"] or {}).get("split_best") is not None
                  and p["summary"]["over_cublaslt_best"]["split_best"] <= 1)
        uuid = d["device"].get("uuid", "?")[:8]
        print("%-60s gpu %s git %s replays %s: %d of %d" % (
            path, uuid, d["meta"]["git_sha"][:7], d["meta"].get("iterations"), met, len(pts)))
        per_gpu.setdefault(uuid, []).append(met)
    print("%d GPUs" % len(per_gpu))
    for uuid, counts in per_gpu.items():
        print("  %s: %s" % (uuid, ", ".join(str(c) for c in counts)))
    allc = [c for cs in per_gpu.values() for c in cs]
    print("range over the runs: %d to %d" % (min(allc), max(allc)))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
