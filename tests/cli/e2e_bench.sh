#!/usr/bin/env bash
# e2e_bench.sh GEMMQ SOURCE_DIR: what `gemmq bench` does without a GPU: help, the host refusal
# (also of --devices), bad options, and the hidden --render path (Markdown from a hand-made bench JSON).
set -u
gemmq=$1 src=$2
fail=0
. "$src/tests/expect.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expect 0 'bench \[PROTOCOL\] .*cuBLASLt top 8' -- "$gemmq" --help
expect 0 'usage: gemmq bench' -- "$gemmq" bench --help
expect 0 "default: the device's read bandwidth" -- "$gemmq" bench --help
expect 0 'sm-clock .*nvbench' -- "$gemmq" bench --help
expect 0 'recorded as its config' -- "$gemmq" bench --help
expect 0 'geometric mean of speedups' -- "$gemmq" bench --help
expect 2 'needs a GPU.*--device host' -- "$gemmq" bench "$src/protocols/k1_wgrad.json" --device host
expect 2 'unknown option' -- "$gemmq" bench --bogus
expect 2 "--iterations wants an integer >= 1, not '0'" -- "$gemmq" bench --iterations 0
expect 2 "--iterations wants an integer >= 1, not '5x'" -- "$gemmq" bench --iterations 5x
expect 2 "--warmup wants an integer >= 0, not '-1'" -- "$gemmq" bench --warmup -1
expect 2 "--bandwidth wants GB/s > 0, not '-3'" -- "$gemmq" bench --bandwidth -3
expect 2 "--bandwidth wants GB/s > 0, not 'fast'" -- "$gemmq" bench --bandwidth fast
expect 2 "unknown program 'nope:x'" -- "$gemmq" bench -p nope:x
expect 2 'give one protocol' -- "$gemmq" bench a.json b.json
expect 0 'devices LIST.all one shard per GPU' -- "$gemmq" bench --help
expect 2 'host devices cannot bench' -- "$gemmq" bench --devices host:0,host:1
# Options repeated many times are taken once each for the shards (the last value), not piled up.
many=(); for _ in $(seq 200); do many+=(--iterations 5 --warmup 1 --sm-clock); done
expect 2 'host devices cannot bench' -- "$gemmq" bench --devices host:0 "${many[@]}"
expect 2 'runs one shard per GPU itself.*without --device, --shard or --md' -- \
  "$gemmq" bench --devices 0 --md "$tmp/x.md"
expect 2 'runs one shard per GPU itself' -- "$gemmq" bench --devices 0 --shard 0/2
expect 2 "--shard wants I/N with 0 <= I < N \\(got '3/2'\\)" -- "$gemmq" bench --shard 3/2
# Without a GPU, a plain run is refused as bad input, not as a device error.
if "$gemmq" info 2>&1 | grep -q 'no CUDA GPU'; then
  expect 2 'bench needs a GPU' -- "$gemmq" bench "$src/protocols/k1_wgrad.json"
fi

cat >"$tmp/bench.json" <<'JSON'
{"format_version": 1, "kind": "gemmq-bench",
 "meta": {"gemmq_version": "0.1.0", "git_sha": "feedbee", "protocol": {"name": "tiny", "sha256": "aaaabbbbccccdddd"},
          "iterations": 20, "warmup": 3, "flush_bytes": 125829120, "bandwidth_gbps": 4300, "complete": true},
 "device": {"name": "NVIDIA H200", "arch": "sm_90", "driver_version": 12080, "cublaslt_version": 120805},
 "points": [{"id": 0, "op": "wgrad", "d_in": 5120, "d_out": 64, "t": 4031, "in": "bf16", "out": "bf16", "floor_us": 10.5,
   "programs": [
     {"program": "gemmq:det", "status": "ok", "reason": "", "median_us": 30.0, "min_us": 29.0, "max_us": 33.0},
     {"program": "gemmq:split:n64:s4", "status": "ok", "reason": "", "median_us": 21.0, "min_us": 20.0, "max_us": 22.5},
     {"program": "cublas:default", "status": "ok", "reason": "", "median_us": 25.0, "min_us": 24.0, "max_us": 26.0},
     {"program": "cublaslt:algo:1", "status": "ok", "reason": "", "median_us": 24.0, "min_us": 23.0, "max_us": 25.0},
     {"program": "cublaslt:algo:7", "status": "unsupported", "reason": "cuBLASLt offered 6 algorithms"}]}]}
JSON
expect 0 '\| wgrad 5120x64 \| 4031 \| bf16→bf16 \| 10.50 \| 24.00 \(cublaslt:algo:1\) \| 25.00 \| 30.00 \| — \| 21.00 \(gemmq:split:n64:s4\) \| 0.875 \| — \|$' -- "$gemmq" bench --render "$tmp/bench.json"
expect 0 'at least as fast at 1 of the 1 points where both ran; the interval lies below 1 at 0, contains 1 at 0 and lies above 1 at 0 \(none at 1\)' -- "$gemmq" bench --render "$tmp/bench.json"
expect 0 'NVIDIA H200 \(sm_90\), driver CUDA 12.8, cuBLASLt 120805' -- "$gemmq" bench --render "$tmp/bench.json"
expect 0 'L2 flush of 120.0 MiB' -- "$gemmq" bench --render "$tmp/bench.json"
expect 0 'unsupported: cuBLASLt offered 6 algorithms' -- "$gemmq" bench --render "$tmp/bench.json"
# the split program of the shape: det / split = 30 / 21
expect 0 '^\| wgrad 5120x64 \| bf16→bf16 \| 1 \| gemmq:split:n64:s4 \(1.429\) \| — \|$' -- "$gemmq" bench --render "$tmp/bench.json"
expect 0 '^$' -- "$gemmq" bench --render "$tmp/bench.json" --md "$tmp/out.md"
if ! grep -q '0.875' "$tmp/out.md"; then echo "FAIL: --md did not write the table"; fail=1; else echo "ok: --md wrote $tmp/out.md"; fi
ls "$tmp"/out.md.tmp-* >/dev/null 2>&1 && { echo "FAIL: a temporary Markdown file was left"; fail=1; }
# With the replays' spans of the best split and of cuBLASLt's best, the ratio gets its interval:
# every resampled median of cuBLASLt's is 24 µs, the split's 20, 21 or 22.
sed -e 's/"median_us": 21.0, "min_us": 20.0, "max_us": 22.5/&, "samples_ns": [20000, 21000, 22000]/' \
    -e 's/"median_us": 24.0, "min_us": 23.0, "max_us": 25.0/&, "samples_ns": [24000, 24000, 24000]/' \
    "$tmp/bench.json" >"$tmp/spans.json"
expect 0 '\| 0.875 \| 0.833..0.917 \|$' -- "$gemmq" bench --render "$tmp/spans.json"
expect 0 'the interval lies below 1 at 1, contains 1 at 0 and lies above 1 at 0\.' -- "$gemmq" bench --render "$tmp/spans.json"
# A file that records how its floor's bandwidth was had says so in the caption.
sed -e 's/"bandwidth_gbps": 4300/"bandwidth_gbps": 3012.5/' -e 's/"complete": true}/"complete": true, "bandwidth": {"source": "measured", "measured_gbps": 3012.5, "method": "streaming read of 2.00 GiB, best of 10", "theoretical_gbps": 3352.3, "theoretical_method": "NVML"}}/' \
  "$tmp/bench.json" >"$tmp/measured.json"
expect 0 'Floor = \(bytes of A \+ B \+ the output\) / 3012 GB/s, the device.s read bandwidth measured at the start of the run \(streaming read of 2.00 GiB, best of 10; NVML.s theoretical peak 3352 GB/s\)\.' -- \
  "$gemmq" bench --render "$tmp/measured.json"
sed 's/"complete": true}/"complete": true, "bandwidth": {"source": "--bandwidth", "given_gbps": 3000}}/' \
  "$tmp/bench.json" >"$tmp/given.json"
expect 0 '/ 4300 GB/s, as given with --bandwidth\.' -- "$gemmq" bench --render "$tmp/given.json"
sed 's/"complete": true}/"complete": true, "bandwidth": {"source": "guessed"}}/' "$tmp/bench.json" >"$tmp/guessed.json"
expect 2 'guessed.json:[0-9]+:[0-9]+: \$\.meta\.bandwidth\.source: expected one of' -- "$gemmq" bench --render "$tmp/guessed.json"
expect 2 'cannot|No such file' -- "$gemmq" bench --render "$tmp/missing.json"
echo '{"format_version": 1}' >"$tmp/notbench.json"
expect 2 'not a bench results file \(its "kind" is not "gemmq-bench"\)' -- "$gemmq" bench --render "$tmp/notbench.json"

# --accuracy: the results of gemmq accuracy at the same point mark cuBLASLt's algorithm 1 as
# inaccurate; no other cuBLASLt algorithm ran, so there is no fastest accurate one.
# It is made from a committed results file, so that it is a results file gemmq would write.
python3 - "$src/results/h200/calibration/twin.json" "$tmp/acc.json" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
p = d["points"][0]
p.update({"id": "wgrad/5120x64/T4031/bf16-bf16", "op": "wgrad", "d_in": 5120, "d_out": 64,
          "t": 4031, "in": "bf16", "out": "bf16"})
p.pop("verdict", None)
rec = p["accuracy"]["programs"][0]
lt, det = copy.deepcopy(rec), copy.deepcopy(rec)
lt.update({"program": "cublaslt:algo:1", "status": "fail"})
det.update({"program": "gemmq:det", "status": "pass"})
p["accuracy"]["programs"] = [lt, det]
d["points"] = [p]
d.pop("timing", None)
d.pop("qualification", None)
d["meta"]["protocol"]["name"] = "screen"
d["meta"]["protocol"]["content"]["accuracy"].update({"seeds": 2, "reruns": 2})
json.dump(d, open(sys.argv[2], "w"))
PY
expect 0 '24.00 \(cublaslt:algo:1, inaccurate\) \| 25.00 \| 30.00 \| — \| 21.00 \(gemmq:split:n64:s4\) \| 0.875 \| — \| — \| — \|' -- "$gemmq" bench --render "$tmp/bench.json" --accuracy "$tmp/acc.json"
expect 0 'protocol `screen` \(2 seeds x 2 reruns' -- "$gemmq" bench --render "$tmp/bench.json" --accuracy "$tmp/acc.json"
expect 0 '\| gemmq:det \| 30.00 .* \| accuracy: pass \|' -- "$gemmq" bench --render "$tmp/bench.json" --accuracy "$tmp/acc.json"
expect 2 'bench.json: not a results file \(its "kind" is not "gemmq-results"\)' -- "$gemmq" bench --render "$tmp/bench.json" --accuracy "$tmp/bench.json"
expect 2 'cannot|No such file' -- "$gemmq" bench --render "$tmp/bench.json" --accuracy "$tmp/missing.json"
expect 2 '--accuracy goes with --render' -- "$gemmq" bench --accuracy "$tmp/acc.json"
exit $fail
