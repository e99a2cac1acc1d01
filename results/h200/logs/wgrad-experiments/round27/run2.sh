#!/usr/bin/env bash
# run2.sh: twenty-seventh round, call 2 (an H200), from the repository root:
#   C=2 bash results/h200/logs/wgrad-experiments/round27/run2.sh   (writes $OUT/all.tgz)
# build-exp/h27u.txz: build-exp/h27u/gemmq, df.patch (without call 3's additions) built with
# -DGQX_DF_TRACE: with GQX_DF=1 each consumer warpgroup's first thread prints its CTA's times
# (%globaltimer, ns after its producer's last copy was issued): the producer's checks of the
# counters and what they saw, the warpgroup's last multiply, the producer's choice, its count and
# its end. Three traced benches of ../round23/probe-128.json (3 replays each, n256:s4 and
# n320:s4). A first attempt of this call sourced ../round16/start.sh, which has no `timed`, and
# ran nothing; call2.txz is the record of this file's run.
c=${C:?give the call number in C}
R=h27u
. results/h200/logs/wgrad-experiments/round22/start.sh
for i in 1 2 3; do
  timed "trace $i" 120 /tmp/o/trace-$i.log env GQX_DF=1 build-exp/h27u/gemmq bench \
    results/h200/logs/wgrad-experiments/round23/probe-128.json \
    -p gemmq:split:n256:s4 -p gemmq:split:n320:s4 --iterations 3 -o /tmp/r/trace-$i.json
done
snap "traces done"
