# bench.sh: sourced by run.sh and */run.sh (from the repository root): the bench of the
# memory-bound points that every variant of the third round gets, and its record in /tmp/r.
#   run NAME BINARY [VAR=VALUE...]   one `gemmq bench` of the four split programs that are ever
#                                    the best there, with the environment given; RUN_TIMEOUT
#                                    (seconds, default 0: none) bounds each
# (The runs were made with the same lines written out in each run.sh; they now share this file.)
P=protocols/k1_wgrad_membound.json
progs="-p gemmq:split:n128:s3 -p gemmq:split:n128:s4 -p gemmq:split:n256:s3 -p gemmq:split:n256:s4"
mkdir -p /tmp/r; nvidia-smi --query-gpu=name,serial,clocks.max.mem,clocks.max.sm --format=csv,noheader | tee /tmp/r/gpu.txt
run() { name=$1; bin=$2; shift 2
  s=$(date +%s)
  env "$@" timeout "${RUN_TIMEOUT:-0}" $bin bench $P $progs -q -o /tmp/r/$name.json --md /tmp/r/$name.md > /tmp/r/$name.log 2>&1
  echo "$name rc=$? $(( $(date +%s) - s )) s: $bin $*" | tee -a /tmp/r/runs.txt; }
