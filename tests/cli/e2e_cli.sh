#!/usr/bin/env bash
# e2e_cli.sh GEMMQ SOURCE_DIR: the command line's help, version, errors and exit statuses.
set -u
gemmq=$1 src=$2
fail=0
. "$src/tests/expect.sh"
expect 0 'usage: gemmq <command>' -- "$gemmq" --help
expect 2 'usage: gemmq <command>' -- "$gemmq"
expect 2 "unknown command 'frobnicate'" -- "$gemmq" frobnicate
expect 0 '^gemmq [0-9]+\.[0-9]+\.[0-9]+ \(git [0-9a-f]+' -- "$gemmq" --version
for c in info list check-protocol check-results accuracy time; do
  expect 0 "usage: gemmq $c" -- "$gemmq" $c --help
done
expect 2 'unknown option' -- "$gemmq" accuracy --bogus
expect 2 'give at least one protocol file' -- "$gemmq" check-protocol
expect 2 'give at least one results or bench file' -- "$gemmq" check-results
expect 0 "slow-3.json: ok: results file of protocol 'calibration-slow-3', 1 point, NVIDIA H200" -- "$gemmq" check-results "$src/results/h200/calibration/slow-3.json"
expect 0 "programs.json.gz: ok: bench results file of protocol" -- "$gemmq" check-results "$src/results/h200/programs.json.gz"
expect 2 'host-split.json: not a results file' -- "$gemmq" check-results "$src/tests/protocols/e2e/host-split.json"
expect 2 "'gpu7' is not a device" -- "$gemmq" accuracy --device gpu7
expect 0 'host backend' -- "$gemmq" info --device host
expect 0 '"backend": "host"' -- "$gemmq" info --device host --json
expect 0 'host:ref .* yes .* yes' -- "$gemmq" list --device host
expect 0 'cublaslt:heuristic' -- "$gemmq" list --device host
# A part that is not here: our sm_90a programs are unavailable there, with the reason; the
# library programs are available.
b200="NVIDIA B200,sm_100,148"
expect 0 '^part: NVIDIA B200 \(sm_100, part b200-sm_100-148sm\)' -- "$gemmq" list --part "$b200"
for p in 'gemmq:det' 'gemmq:split:n<[^ ]*' 'gemmq:streamk'; do
  expect 0 "^$p +gpu +(yes|no) +no +ours .*; unavailable: needs sm_90 \\(built for sm_90a only\\); this part is sm_100\$" -- "$gemmq" list --part "$b200"
done
for p in 'cublas:default' 'cublaslt:heuristic' 'cublaslt:top8' 'cublaslt:algo:<i>'; do
  expect 0 "^$p +gpu +(yes|no) +yes +cublas" -- "$gemmq" list --part "$b200"
done
expect 0 '^gemmq:det +gpu +yes +yes +ours' -- "$gemmq" list --part "NVIDIA H200,sm_90,132"
expect 0 '^host:ref +host +yes +no .*unavailable: a host-backend program' -- "$gemmq" list --part "$b200"
expect 2 "'b200' is not a part: write NAME,ARCH,SMS" -- "$gemmq" list --part b200
expect 2 'give --device or --part, not both' -- "$gemmq" list --part "$b200" --device host
expect 2 'No such file|cannot (open|read)' -- "$gemmq" check-protocol /nonexistent/protocol.json
expect 2 'cannot (create|write)' -- "$gemmq" accuracy "$src/tests/protocols/e2e/host-split.json" --device host -o /dev/null/dir/x.json
exit $fail
