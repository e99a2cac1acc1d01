#!/usr/bin/env python3
"""keep_compared.py IN.json OUT.json: a bench JSON with samples_ns dropped from every program of
each point but the best split and cuBLASLt's best (lowest median among the family's programs
with status "ok"), as gq_bench_keep_compared_spans (harness/bench.c) does since 230ae5c. Used
on call 2's programs.json, written by 31a5d70, which kept every program's spans (19 MB); the
summaries, whose intervals need only those two, are left as they are."""
import json, math, sys


def best(progs, prefix):
    ok = [p for p in progs if p.get("status") == "ok" and isinstance(p.get("median_us"), (int, float))
          and math.isfinite(p["median_us"]) and p.get("program", "").startswith(prefix)]
    return min(ok, key=lambda p: p["median_us"]) if ok else None  # first of equal medians, as best_of


doc = json.load(open(sys.argv[1]))
for pt in doc["points"]:
    keep = [best(pt["programs"], "cublaslt:"), best(pt["programs"], "gemmq:split:")]
    for p in pt["programs"]:
        if not any(p is k for k in keep):
            p.pop("samples_ns", None)
json.dump(doc, open(sys.argv[2], "w"), indent=2, ensure_ascii=False)
open(sys.argv[2], "a").write("\n")
