# check.sh: sourced by run*.sh (from the repository root, after ../round3/bench.sh): the accuracy
# check that every experimental build gets before it is timed.
#   check TAG BINARY [VAR=VALUE...]   `gemmq accuracy` of probe-check.json (odd T, both out
#                                     dtypes) with the programs in CHECK_PROGS and the environment
#                                     given; exit status 1 means a program missed its budget
# (The runs were made with the same lines written out in each run*.sh; they now share this file.)
CHECK_PROGS=${CHECK_PROGS:-"-p gemmq:split:n128:s3 -p gemmq:split:n128:s4 -p gemmq:split:n256:s4 -p gemmq:split:n64:s2"}
check() { tag=$1; bin=$2; shift 2
  env "$@" timeout 90 $bin accuracy results/h200/logs/wgrad-experiments/round4/probe-check.json -q $CHECK_PROGS -o /tmp/r/check-$tag.json > /tmp/r/check-$tag.log 2>&1
  echo "check $* rc=$?" | tee -a /tmp/r/runs.txt; tail -1 /tmp/r/check-$tag.log; }
# check65537 TAG BINARY [SECONDS]: the same check at T = 65537 (../round18/probe-65537.json),
# bounded by SECONDS (default 120), into /tmp/r/check-TAG-65537.* (added in the twenty-third
# round for the run scripts of rounds 18 and 19, which had these lines written out).
check65537() {
  timeout "${3:-120}" $2 accuracy results/h200/logs/wgrad-experiments/round18/probe-65537.json -q $CHECK_PROGS -o /tmp/r/check-$1-65537.json > /tmp/r/check-$1-65537.log 2>&1
  echo "check-$1-65537 rc=$?" | tee -a /tmp/r/runs.txt; tail -1 /tmp/r/check-$1-65537.log; }
