# landed.sh: sourced by run4.sh and run5.sh (from the repository root, after
# ../round9/prologue.sh): what every landed kernel of the tenth round gets on the GPU.
#   landed   the GPU tests that run the kernels (build-exp/gpu_test_gpu_*, from build/), the bench
#            of protocols/k1_wgrad.json with build/gemmq, and the accuracy of all 14 programs and
#            cublas:default on protocols/k1_wgrad_odd.json, each recorded with snap
# (The runs were made with these lines written out in run4.sh and run5.sh; they now share them.)
gputest() { (cd build && timeout ${2:-150} ../build-exp/gpu_test_gpu_$1 > /tmp/o/gpu_test_gpu_$1.log 2>&1); snap "gpu_test_gpu_$1 rc=$?"; }
landed() {
  gputest kernels 200; gputest programs 100; gputest det_processes 100
  { time build/gemmq bench --device 0 -o /tmp/o/programs.json --md /tmp/o/programs.md protocols/k1_wgrad.json ; } > /tmp/o/programs-bench.log 2>&1
  snap "bench rc=$?"
  progs=""; for p in gemmq:det gemmq:streamk; do progs="$progs -p $p"; done
  for n in 64 128 256; do for s in 1 2 3 4; do progs="$progs -p gemmq:split:n$n:s$s"; done; done
  { time build/gemmq accuracy --device 0 $progs -p cublas:default -o /tmp/o/accuracy-k1-programs.json protocols/k1_wgrad_odd.json ; } > /tmp/o/accuracy-k1-programs.log 2>&1
  snap "accuracy rc=$?"
}
