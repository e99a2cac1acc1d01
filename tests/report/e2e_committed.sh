#!/usr/bin/env bash
# e2e_committed.sh GEMMQ SOURCE_DIR: every committed results file stays readable. For each JSON
# under results/<part>/ (plain or .json.gz): a results file (kind gemmq-results) goes through
# table (Markdown and TSV), compare against itself (OK, no regression) and merge (alone, the
# merged file then read by table); plot when it has timing, plan (JSON and C) when it has
# verdicts; without them each must refuse it for that reason (exit 2), which shows it was read.
# A bench file (kind gemmq-bench) goes through bench --render. Each must exit as said and write
# something. Files of other kinds (the calibration summary) are listed and not read by these
# commands. And kernels/plan_table.c is what `gemmq plan --format c` makes of every part's
# committed k1_wgrad.json.gz.
set -u
gemmq=$1 src=$2
tmp=$(mktemp -d /tmp/gemmq-e2e-committed-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/expect.sh"

nonempty() { # nonempty FILE WHAT: FILE must exist with content
  if [ -s "$1" ]; then echo "ok: $2 wrote $(wc -c <"$1") bytes"; else say_fail "$2 wrote nothing"; fi
}

# kind_of FILE: its kind, then "timed" when it has a timing section, "verdicts" when it has
# a qualification section
kind_of() {
  python3 -c 'import gzip,json,sys
p=sys.argv[1]
d=json.load(gzip.open(p) if p.endswith(".gz") else open(p))
timed="timing" in d
print(d.get("kind",""), "timed" if timed else "-", "verdicts" if "qualification" in d else "-")' "$1"
}

results=0 benches=0
while IFS= read -r file; do
  rel=${file#"$src/"}
  out=$tmp/$(echo "$rel" | tr '/' '_')
  read -r kind timed verdicts < <(kind_of "$file")
  case $kind in
  gemmq-results)
    results=$((results + 1))
    expect 0 '' -- "$gemmq" table "$file" -o "$out.md"
    nonempty "$out.md" "table $rel"
    expect 0 '' -- "$gemmq" table --format tsv "$file" -o "$out.tsv"
    expect 0 '^\*\*OK\*\*: 0 latency regressions' -- "$gemmq" compare "$file" "$file"
    expect 0 '' -- "$gemmq" merge "$file" -o "$out.merged.json.gz"
    expect 0 '' -- "$gemmq" table "$out.merged.json.gz" -o "$out.merged.md"
    if [ "$timed" = timed ]; then
      expect 0 '' -- "$gemmq" plot "$file" -o "$out.plots"
      nonempty "$(ls "$out.plots"/*.png 2>/dev/null | head -1)" "plot $rel"
    else
      expect 2 'nothing to plot: no point of the results has a timing section' -- \
        "$gemmq" plot "$file" -o "$out.plots"
    fi
    if [ "$verdicts" = verdicts ]; then
      expect 0 '' -- "$gemmq" plan "$file" -o "$out.plan.json"
      nonempty "$out.plan.json" "plan $rel"
      expect 0 '' -- "$gemmq" plan --format c "$file" -o "$out.plan.c"
    else
      expect 2 'has no verdicts' -- "$gemmq" plan "$file" -o "$out.plan.json"
    fi
    ;;
  gemmq-bench)
    benches=$((benches + 1))
    expect 0 '' -- "$gemmq" bench --render "$file" --md "$out.md"
    nonempty "$out.md" "bench --render $rel"
    ;;
  *) echo "note: $rel is not a results or bench file; the report commands do not read it" ;;
  esac
done < <(find "$src/results" -name '*.json' -o -name '*.json.gz' | sort)

# The planner table is what plan makes of every part's committed k1_wgrad qualification.
(cd "$src/results" && "$gemmq" plan --format c $(ls */k1_wgrad.json.gz | sort) -o "$tmp/plan_table.c") ||
  say_fail "gemmq plan over the committed k1_wgrad files failed"
if cmp -s "$tmp/plan_table.c" "$src/kernels/plan_table.c"; then
  echo "ok: kernels/plan_table.c = gemmq plan --format c of $(cd "$src/results" && ls */k1_wgrad.json.gz | sort | tr '\n' ' ')"
else
  say_fail "kernels/plan_table.c is not what gemmq plan makes of the committed k1_wgrad files:"
  diff -u "$src/kernels/plan_table.c" "$tmp/plan_table.c" | head -20
fi

[ "$results" -gt 0 ] || say_fail "no committed results file found under $src/results"
[ "$benches" -gt 0 ] || say_fail "no committed bench file found under $src/results"
echo "$results results files and $benches bench files read"
exit $fail
