# start.sh: sourced first by run2.sh and run3.sh (from the repository root), with c set: unpacks
# build-exp/r22b.txz through ../round16/start.sh, sets B (its gemmq) and progs (the six split
# programs of run1.sh), and notes nvidia-smi's temperature, power and clocks in /tmp/o/smi.csv;
# smi_after adds them once more at the end. (The runs were made with these lines written out in
# each run*.sh; they now share this file.)
. results/h200/logs/wgrad-experiments/round16/start.sh build-exp/r22b.txz
B=build-exp/r22b/gemmq
progs="$progs -p gemmq:split:n320:s3 -p gemmq:split:n320:s4"
q="--query-gpu=index,pci.bus_id,serial,temperature.gpu,power.limit,power.draw,clocks.sm,clocks_event_reasons.active --format=csv"
nvidia-smi $q > /tmp/o/smi.csv
smi_after() { nvidia-smi $q | tail -n +2 >> /tmp/o/smi.csv; }
