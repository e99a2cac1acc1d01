#!/usr/bin/env bash
# run_fuzz.sh BUILD_DIR SECONDS: run each libFuzzer target of BUILD_DIR/tests for SECONDS on a
# seed corpus made from committed files: the protocols (fuzz_protocol), small committed results
# files (fuzz_results) and the committed bench file cut to two points (fuzz_bench). Exit 1 on any
# finding (crash, leak, undefined behaviour, timeout); its input stays in BUILD_DIR/fuzz/<target>/.
set -u
build=$1 seconds=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$build/fuzz
rm -rf "$work"
mkdir -p "$work"
fail=0
seed() { # seed TARGET FILE...: copy the files into TARGET's corpus
  local t=$1
  shift
  mkdir -p "$work/$t/corpus"
  cp "$@" "$work/$t/corpus/"
}
seed fuzz_protocol "$src"/protocols/*.json "$src"/protocols/calibration/*.json \
  "$src"/tests/protocols/e2e/*.json
rm -f "$work"/fuzz_protocol/corpus/*schema.json
seed fuzz_results "$src"/results/h200/calibration/*.json
mkdir -p "$work/fuzz_bench/corpus"
python3 - "$src/results/h200/programs.json.gz" "$work/fuzz_bench/corpus/programs-2.json" <<'PY'
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
d["points"] = d["points"][:2]
json.dump(d, open(sys.argv[2], "w"))
PY
for t in fuzz_protocol fuzz_results fuzz_bench; do
  bin=$build/tests/$t
  if [ ! -x "$bin" ]; then
    echo "FAIL: $t not built in $build (configure with -DGQ_FUZZ=ON and clang)" >&2
    fail=1
    continue
  fi
  mkdir -p "$work/$t/findings"
  echo "fuzzing $t for ${seconds} s ($(ls "$work/$t/corpus" | wc -l) seeds)" >&2
  if (cd "$work/$t" && "$bin" corpus -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
        -artifact_prefix=findings/ -print_final_stats=1 >"$work/$t/log" 2>&1); then
    echo "ok: $t: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$work/$t/log" | grep -o '[0-9]*$') inputs, no finding" >&2
  else
    echo "FAIL: $t found something; its input: $(ls "$work/$t/findings")" >&2
    grep -E 'ERROR|runtime error|SUMMARY|^ *#[0-9]' "$work/$t/log" | head -30 >&2
    fail=1
  fi
done
exit $fail
