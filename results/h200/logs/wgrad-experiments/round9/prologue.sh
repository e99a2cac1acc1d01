# prologue.sh: sourced by the run*.sh of the ninth round (from the repository root): the bench and
# the check of rounds 3 and 4 (../round3/bench.sh, ../round4/check.sh), the record in /tmp/o with
# /tmp/r inside it, and `snap MESSAGE`, which notes MESSAGE in /tmp/o/runs.txt and packs /tmp/o
# into $OUT/all.tgz; `tables "BUILD..."` makes /tmp/o/variants-$c.tsv of the runs BUILD_N in
# /tmp/r and prints its tables (../round8/group.py against m, ../round3/summarize.py). (The runs
# were made with these lines written out in each run*.sh; they now share this file.)
RUN_TIMEOUT=60
. results/h200/logs/wgrad-experiments/round3/bench.sh
. results/h200/logs/wgrad-experiments/round4/check.sh
mkdir -p /tmp/o; ln -sfn /tmp/r /tmp/o/r
snap() { echo "$1" | tee -a /tmp/o/runs.txt; tar czhf $OUT/all.tgz -C /tmp o; }
CHECK_PROGS="-p gemmq:split:n128:s3 -p gemmq:split:n128:s4 -p gemmq:split:n256:s4 -p gemmq:split:n64:s2"
tables() {
  python3 results/h200/logs/wgrad-experiments/round3/summarize.py tsv \
    $(for b in $1; do echo /tmp/r/${b}_*.json; done) > /tmp/o/variants-$c.tsv
  python3 results/h200/logs/wgrad-experiments/round8/group.py /tmp/o/variants-$c.tsv m
  python3 results/h200/logs/wgrad-experiments/round3/summarize.py table /tmp/o/variants-$c.tsv
  snap "tables done"; }
