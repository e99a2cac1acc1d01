# sm_90-132sm-wgrad-5120x32-bf16-fp32.gp: made by gemmq plot from sm_90-132sm-wgrad-5120x32-bf16-fp32.dat
set encoding utf8
set datafile missing "?"
set terminal pngcairo size 1100,900 noenhanced font "sans,10"
set output "sm_90-132sm-wgrad-5120x32-bf16-fp32.png"
set multiplot layout 2,1 title "wgrad 5120x32, bf16 -> fp32, step op, on NVIDIA H200 (sm_90, 132 SMs)"
set lmargin at screen 0.08
set rmargin at screen 0.76
set logscale x 2
set grid
set key outside right top
set xlabel "T (tokens)"
set logscale y
set ylabel "latency (µs)"
plot "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:2 with linespoints lc rgb "#1f77b4" dt 1 pt 7 title "incumbent, graph", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:3 with linespoints lc rgb "#d62728" dt 1 pt 7 title "candidate gemmq:split:n128:s3, graph", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:4 with linespoints lc rgb "#7f7f7f" dt 1 pt 7 title "twin, graph", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:5 with linespoints lc rgb "#2ca02c" dt 1 pt 7 title "sota, graph", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:11 with linespoints lc rgb "#1f77b4" dt 2 pt 6 title "incumbent, eager", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:12 with linespoints lc rgb "#d62728" dt 2 pt 6 title "candidate gemmq:split:n128:s3, eager", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:13 with linespoints lc rgb "#7f7f7f" dt 2 pt 6 title "twin, eager", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:14 with linespoints lc rgb "#2ca02c" dt 2 pt 6 title "sota, eager"
unset logscale y
set ylabel "speedup over the incumbent"
plot "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:(0.978684):(1.01601) with filledcurves fc rgb "#bbbbbb" fs transparent solid 0.4 noborder title "A/A band [0.9787, 1.0160]", 1 with lines lc rgb "black" dt 3 notitle, "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:6:7:8 with yerrorlines lc rgb "#d62728" dt 1 pt 7 title "candidate gemmq:split:n128:s3, graph", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:9 with linespoints lc rgb "#2ca02c" dt 1 pt 7 title "sota, graph", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:10 with points pt 65 ps 2.2 lw 2 lc rgb "#006400" title "qualified, graph", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:15:16:17 with yerrorlines lc rgb "#d62728" dt 2 pt 6 title "candidate gemmq:split:n128:s3, eager", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:18 with linespoints lc rgb "#2ca02c" dt 2 pt 6 title "sota, eager", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:19 with points pt 65 ps 2.2 lw 2 lc rgb "#006400" title "qualified, eager"
unset multiplot
set output
reset
set encoding utf8
set datafile missing "?"
set terminal svg size 1100,900 noenhanced font "sans,10" background "white"
set output "sm_90-132sm-wgrad-5120x32-bf16-fp32.svg"
set multiplot layout 2,1 title "wgrad 5120x32, bf16 -> fp32, step op, on NVIDIA H200 (sm_90, 132 SMs)"
set lmargin at screen 0.08
set rmargin at screen 0.76
set logscale x 2
set grid
set key outside right top
set xlabel "T (tokens)"
set logscale y
set ylabel "latency (µs)"
plot "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:2 with linespoints lc rgb "#1f77b4" dt 1 pt 7 title "incumbent, graph", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:3 with linespoints lc rgb "#d62728" dt 1 pt 7 title "candidate gemmq:split:n128:s3, graph", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:4 with linespoints lc rgb "#7f7f7f" dt 1 pt 7 title "twin, graph", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:5 with linespoints lc rgb "#2ca02c" dt 1 pt 7 title "sota, graph", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:11 with linespoints lc rgb "#1f77b4" dt 2 pt 6 title "incumbent, eager", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:12 with linespoints lc rgb "#d62728" dt 2 pt 6 title "candidate gemmq:split:n128:s3, eager", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:13 with linespoints lc rgb "#7f7f7f" dt 2 pt 6 title "twin, eager", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:14 with linespoints lc rgb "#2ca02c" dt 2 pt 6 title "sota, eager"
unset logscale y
set ylabel "speedup over the incumbent"
plot "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:(0.978684):(1.01601) with filledcurves fc rgb "#bbbbbb" fs transparent solid 0.4 noborder title "A/A band [0.9787, 1.0160]", 1 with lines lc rgb "black" dt 3 notitle, "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:6:7:8 with yerrorlines lc rgb "#d62728" dt 1 pt 7 title "candidate gemmq:split:n128:s3, graph", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:9 with linespoints lc rgb "#2ca02c" dt 1 pt 7 title "sota, graph", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:10 with points pt 65 ps 2.2 lw 2 lc rgb "#006400" title "qualified, graph", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:15:16:17 with yerrorlines lc rgb "#d62728" dt 2 pt 6 title "candidate gemmq:split:n128:s3, eager", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:18 with linespoints lc rgb "#2ca02c" dt 2 pt 6 title "sota, eager", "sm_90-132sm-wgrad-5120x32-bf16-fp32.dat" using 1:19 with points pt 65 ps 2.2 lw 2 lc rgb "#006400" title "qualified, eager"
unset multiplot
set output
