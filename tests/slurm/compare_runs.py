#!/usr/bin/env python3
"""compare_runs.py UNSHARDED MERGED UNSHARDED_PLAN MERGED_PLAN: a qualification sharded over a
Slurm array and merged must decide what one unsharded run decides.

Equal, point by point (by id, in order): the verdict object (status, candidate, incumbent,
summary, every reason with its rule, seed and figure, disclosure); the accuracy record without
its seconds (each program's status, message, seeds, worst metrics, output hashes, q ratios:
the same computation on the same inputs, so the same bits); the timing status of the point and
of each series (arm, mode, step). Equal as wholes: the accuracy summary, the qualification's
decision and counts per verdict, and the plan's routes.
Left out, because they differ legitimately: meta (argv, times, shard, merged_from), every
seconds, rate and timing figure (latencies, speedups, intervals, the A/A band: the host clock
of another process), and the plan's sources (file names). The merged file must come from
shards I/N, I = 0 ... N-1, each once.
Exit status 0 equal, 1 a difference (each printed), 2 bad usage.
"""
import json
import sys


def without_seconds(value):
    """value with every key naming a time or a rate of the run left out, recursively."""
    if isinstance(value, dict):
        return {k: without_seconds(v) for k, v in value.items()
                if "seconds" not in k and "gflops" not in k}
    if isinstance(value, list):
        return [without_seconds(v) for v in value]
    return value


def first_difference(a, b, path=""):
    """The path of the first place where a and b differ, and the two values there."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if a.get(k, "(missing)") != b.get(k, "(missing)"):
                return first_difference(a.get(k, "(missing)"), b.get(k, "(missing)"), f"{path}.{k}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return first_difference(x, y, f"{path}[{i}]")
    return path, a, b


def timing_statuses(doc, index):
    tp = doc["timing"]["points"][index]
    return {"status": tp["status"],
            "series": [(s["arm"], s["mode"], s["step"], s["status"]) for s in tp["series"]]}


def main(argv):
    if len(argv) != 5:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    runs = {}
    for key, path in zip(("unsharded", "merged", "unsharded plan", "merged plan"), argv[1:]):
        with open(path) as f:
            runs[key] = json.load(f)
    one, merged = runs["unsharded"], runs["merged"]
    diffs = []

    def same(what, a, b):
        if a != b:
            path, x, y = first_difference(a, b)
            diffs.append(f"{what}{path} differs:\n  unsharded: {json.dumps(x)[:300]}\n"
                         f"  merged:    {json.dumps(y)[:300]}")

    ids_one = [p["id"] for p in one["points"]]
    same("point ids", ids_one, [p["id"] for p in merged["points"]])
    if not diffs:
        for i, (a, b) in enumerate(zip(one["points"], merged["points"])):
            same(f"{a['id']}: verdict", a["verdict"], b["verdict"])
            same(f"{a['id']}: accuracy", without_seconds(a["accuracy"]),
                 without_seconds(b["accuracy"]))
            same(f"{a['id']}: timing status", timing_statuses(one, i), timing_statuses(merged, i))
    same("accuracy summary", without_seconds(one["summary"]), without_seconds(merged["summary"]))
    for key in ("decision", "counts", "disclosed_zones"):
        same(f"qualification.{key}", one["qualification"][key], merged["qualification"][key])
    same("plan routes", runs["unsharded plan"]["routes"], runs["merged plan"]["routes"])
    shards = merged["meta"].get("merged_from", [])
    found = sorted((f["shard"]["index"], f["shard"]["count"]) for f in shards if "shard" in f)
    if not shards or found != [(i, len(shards)) for i in range(len(shards))]:
        diffs.append(f"merged from shards (index, count) {found} of {len(shards)} files, not"
                     f" 0 ... N-1 of N, each once")
    if diffs:
        print("\n".join(diffs))
        return 1
    counts = one["qualification"]["counts"]
    print(f"equal: {len(ids_one)} points ({', '.join(f'{n} {k}' for k, n in counts.items() if n)}),"
          f" {len(runs['merged plan']['routes'])} routes; merged from {len(shards)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
