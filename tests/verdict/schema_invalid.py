"""The invalid examples of a schema, fed to gemmq's readers (see e2e_schema_invalid.sh).

Walks a schema (the subset harness/util/jschema.c checks) together with a valid document and, for
every rule that applies at a place the document reaches, makes a copy of the document that breaks
that rule alone. Rules already broken at one place of a schema definition are not broken again at
the next place the same definition applies (every array element of a point has the same rules).
"""
import copy
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

gemmq, src = sys.argv[1], sys.argv[2]
failures = 0
cases = 0


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def step_key(path, key):
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key)}]"


def resolve(root, schema, sid):
    """The schema a $ref points at, and its id: a definition's rules are broken once however many
    places use it."""
    while isinstance(schema, dict) and "$ref" in schema:
        name = schema["$ref"][len("#/$defs/"):]
        schema, sid = root["$defs"][name], "#" + name
    return schema, sid


def wrong_type(types):
    """A JSON value of none of the types."""
    types = [types] if isinstance(types, str) else types
    for value, names in (("not-a-number", {"string"}), ({"x": 1}, {"object"}),
                         ([1], {"array"}), (True, {"boolean"}), (0.5, {"number"})):
        if not names & set(types):
            return value
    return None


def walk(root, schema, doc, path, seen, out, sid):
    """Append (path, mutate(doc_root) function, what) for each rule; doc is the value at path."""
    schema, sid = resolve(root, schema, sid)
    if not isinstance(schema, dict):
        return
    if "type" in schema and (sid, "type") not in seen:
        seen.add((sid, "type"))
        bad = wrong_type(schema["type"])
        if bad is not None:
            out.append((path, bad, "type"))
    if "enum" in schema and (sid, "enum") not in seen:
        seen.add((sid, "enum"))
        out.append((path, "not-one-of-the-enum", "enum"))
    if "const" in schema and (sid, "const") not in seen:
        seen.add((sid, "const"))
        c = schema["const"]
        out.append((path, c + 1 if isinstance(c, int) else "other", "const"))
    for kw, delta in (("minimum", -1), ("maximum", 1)):
        if kw in schema and isinstance(doc, (int, float)) and not isinstance(doc, bool) \
                and (sid, kw) not in seen:
            seen.add((sid, kw))
            lim = schema[kw]
            out.append((path, lim + delta if isinstance(doc, int) else lim + 0.5 * delta, kw))
    if isinstance(doc, list):
        if "minItems" in schema and schema["minItems"] > 0 and (sid, "minItems") not in seen:
            seen.add((sid, "minItems"))
            out.append((path, [], "minItems"))
        if "items" in schema:
            for i, e in enumerate(doc):
                walk(root, schema["items"], e, f"{path}[{i}]", seen, out, sid + "/items")
    if isinstance(doc, dict):
        for key in schema.get("required", []):
            if key in doc and (sid, "required", key) not in seen:
                seen.add((sid, "required", key))
                out.append((path, ("delete", key), "required"))
        if schema.get("additionalProperties") is False and (sid, "additional") not in seen:
            seen.add((sid, "additional"))
            out.append((path, ("add", "zz_not_in_the_schema"), "additionalProperties"))
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for key, value in doc.items():
            sub = props.get(key, extra if isinstance(extra, dict) else None)
            if sub is not None:
                walk(root, sub, value, step_key(path, key),
                     seen, out, sid + "/" + (key if key in props else "*"))


def parse_path(path):
    steps = []
    for m in re.finditer(r'\.([A-Za-z_][A-Za-z0-9_]*)|\[("(?:[^"\\]|\\.)*")\]|\[(\d+)\]', path[1:]):
        steps.append(m.group(1) if m.group(1) else json.loads(m.group(2)) if m.group(2)
                     else int(m.group(3)))
    return steps


def apply(doc, path, change):
    doc = copy.deepcopy(doc)
    steps = parse_path(path)
    parent = doc
    for s in steps[:-1]:
        parent = parent[s]
    if isinstance(change, tuple):
        target = parent[steps[-1]] if steps else doc
        if change[0] == "delete":
            del target[change[1]]
        else:
            target[change[1]] = 1
        return doc
    if not steps:
        return change
    parent[steps[-1]] = change
    return doc


def run(argv):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def expected_text(path, change, rule, name):
    """A regex of the refusal of an example: kind and format_version are checked before the
    schema, in their own words; a document that is not an object does not even parse."""
    if path in ("$.kind", "$.format_version") or (path == "$" and change in (
            ("delete", "kind"), ("delete", "format_version"))):
        return re.escape(name) + r".*(kind|format_version)"
    if path == "$" and rule == "type":
        return re.escape(name) + r":\d+:\d+: not valid JSON"
    shown = step_key(path, "zz_not_in_the_schema") if rule == "additionalProperties" else path
    return re.escape(name) + r":\d+:\d+: " + re.escape(shown) + ": expected "


def check(kind, base, schema_path, readers, tmp):
    """Every example through gemmq check-results (one process), and the first example of each
    rule through each reader."""
    global failures, cases
    schema = load(schema_path)
    good = os.path.join(tmp, f"{kind}-valid.json")
    json.dump(base, open(good, "w"))
    for reader in readers:
        code, text = run(reader(good))
        if code != 0:
            print(f"FAIL: {kind}: the valid document was refused by {reader(good)[1]}: {text[-400:]}")
            failures += 1
    out = []
    walk(schema, schema, base, "$", set(), out, "")
    files, rules, first = [], {}, {}
    for n, (path, change, rule) in enumerate(out):
        name = os.path.join(tmp, f"{kind}-{n}.json")
        json.dump(apply(base, path, change), open(name, "w"), indent=1)
        files.append(name)
        rules[rule] = rules.get(rule, 0) + 1
        first.setdefault(rule, n)
    cases += len(out)
    code, text = run([gemmq, "check-results", good] + files)
    lines = text.splitlines()
    if code != 2 or not any(l.startswith(good + ": ok: ") for l in lines):
        failures += 1
        print(f"FAIL: {kind}: check-results exited {code} (expected 2) or refused the valid file")
    for n, (path, change, rule) in enumerate(out):
        pattern = expected_text(path, change, rule, files[n])
        if not any(re.search(pattern, l) for l in lines):
            failures += 1
            print(f"FAIL: {kind} {rule} at {path}: check-results did not say /{pattern}/")
    for rule, n in sorted(first.items()):
        path, change, _ = out[n]
        for reader in readers:
            code, text = run(reader(files[n]))
            if code != 2 or not re.search(expected_text(path, change, rule, files[n]), text):
                failures += 1
                print(f"FAIL: {kind} {rule} at {path} via {reader(files[n])[1]} (exit {code}): {text.strip()[-300:]}")
    print(f"ok: {kind}: {len(out)} invalid examples ({', '.join(f'{k} {v}' for k, v in sorted(rules.items()))}) "
          f"refused by check-results, the first of each rule by {len(readers)} reader(s)")


with tempfile.TemporaryDirectory(prefix="gemmq-schema-invalid-") as tmp:
    results = load(os.path.join(src, "results/h200/calibration/slow-3.json"))
    other = os.path.join(tmp, "other.json")
    json.dump(results, open(other, "w"))
    readers = [lambda f: [gemmq, "table", f],
               lambda f: [gemmq, "plan", f, "-o", os.path.join(tmp, "plan.json")],
               lambda f: [gemmq, "compare", f, other],
               lambda f: [gemmq, "merge", f, "-o", os.path.join(tmp, "merged.json")],
               lambda f: [gemmq, "plot", f, "-o", os.path.join(tmp, "plots")]]
    check("results", results, os.path.join(src, "protocols/results.schema.json"), readers, tmp)

    bench = load(os.path.join(src, "results/h200/programs.json.gz"))
    bench["points"] = bench["points"][:1]
    check("bench", bench, os.path.join(src, "protocols/bench.schema.json"),
          [lambda f: [gemmq, "bench", "--render", f, "--md", os.path.join(tmp, "bench.md")]], tmp)

print(f"{cases} invalid examples, {failures} not refused as expected")
sys.exit(1 if failures or cases < 50 else 0)
