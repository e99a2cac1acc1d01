/* clock.cu: the SM clock while the wgrad GEMMs run, ours against cuBLASLt's (fourteenth round of
 * ../../wgrad-experiments.md). Not part of the build.
 *
 *   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Ikernels -Iharness \
 *       -o build-exp/clock results/h200/logs/wgrad-experiments/round14/clock.cu -lcublasLt -lcuda
 *   build-exp/clock [T [N [LAUNCHES]]]   (defaults: T = 65537, N = 4096 and 5120, 2000 launches)
 *
 * The question: at d_out 128 the GEMM does about half of the H200's BF16 peak of multiplies while
 * it reads x at about 4.3 TB/s. If that draws enough power to lower the clocks, a kernel that
 * issues more instructions (ours issue 2.3 times as many as cuBLASLt's, ninth round) could run at
 * a lower SM clock, and with it a slower L2 and fabric, than cuBLASLt's.
 *
 * A probe (one CTA of 32 threads, on a second stream) samples %globaltimer and clock64 every
 * microsecond or so for as long as a phase lasts. A phase is LAUNCHES launches of one GEMM back to
 * back, each after the harness's L2 flush (a memset of 2 × L2) and between two one-thread kernels
 * that write %globaltimer: the SM clock during a launch is the probe's clocks over its nanoseconds
 * between the two marks. Per phase this prints the median op time (the marks' span), the median,
 * 10th and 90th percentile of the clock during the ops, the clock during the flushes, and the host
 * time of the phase (to line up with nvidia-smi's power samples). The phases alternate ours and
 * cuBLASLt's fastest of its 8 heuristic algorithms, twice each. Ours are the split programs that
 * matter there (n128:s4 and n256:s4 at 4096, n128:s3 at 5120; 4096x32 n128:s4 for comparison,
 * where ours is the faster), planned as kernels.c plans them (FP32 out: a memset of out, then the
 * kernel adding into it), and checked against cuBLASLt's algorithm 0 first.
 */
#include "../../../../../kernels/gemm_wgmma.cu" /* first: the headers below build on it */

#include "../diag.h"
#include "../stream.h"
#include "probe.h"

int main(int argc, char **argv)
{
	launches = 2000;
	int64_t T = 0, only_n = 0;
	const diag_gpu gpu = stream_open(argc, argv, "clock", &T, &only_n);
	uint16_t *x, *g;
	float *out;
	wgrad_alloc(T, &x, &g, &out, true);
	clk_probe_buf probe = clk_probe_open(1 << 23);
	const std::vector<unsigned long long> &pairs = probe.host;
	unsigned long long *d_marks;
	CHECK(cudaMalloc(&d_marks, (size_t)(2 * launches + 2) * 8));
	cublasLtHandle_t lt;
	LT(cublasLtCreate(&lt));
	std::vector<unsigned long long> marks(2 * launches + 2);
	printf("# T %lld, %d SMs; phases of %d launches, each after the L2 flush\n", (long long)T,
	       gpu.sms, launches);
	printf("# %-28s %9s %9s %8s %8s %8s %8s %14s %14s\n", "program", "op us", "op p90",
	       "MHz p10", "MHz p50", "MHz p90", "flush", "host start", "host end");
	for (const clk_case &c : clk_cases_at(only_n)) {
		const int64_t M = c.m, N = c.n;
		const size_t ob = (size_t)M * N * 4;
		std::vector<float> ref, got(M * N);
		const int keep = launches;
		launches = 10; /* the choice of cuBLASLt's algorithm: 10 launches each */
		int best_a = 0, found = 0;
		lt_fastest(lt, M, N, T, x, g, out, &ref, &best_a, &found);
		launches = keep;
		lt_wgrad w;
		lt_wgrad_open(lt, &w, M, N, T, 8);
		gq_wg_params wp;
		static gq_wg_maps maps;
		split_plan(&wp, &maps, g, x, out, M, N, T, c.bm, c.bn, c.splits, gpu.l2, gpu.sms);
		auto ours = [&] {
			CHECK(cudaMemsetAsync(out, 0, ob));
			CHECK(gq_wg_launch(&wp, &maps, 0));
		};
		auto theirs = [&] { lt_wgrad_run(lt, &w, best_a, x, g, out); };
		ours();
		CHECK(cudaDeviceSynchronize());
		CHECK(cudaMemcpy(got.data(), out, ob, cudaMemcpyDeviceToHost));
		char name[64];
		snprintf(name, sizeof(name), "%lldx%lld n%d:s%d", (long long)N, (long long)M, c.bn,
		         c.splits);
		printf(
		    "\n%s: ours against cuBLASLt algo 0, max |diff| / max |ref| %.2e; cuBLASLt's "
		    "fastest is algo %d of %d\n",
		    name, max_rel(got, ref), best_a, found);
		for (int phase = 0; phase < 4; phase++) {
			const bool mine = phase % 2 == 0;
			clk_probe_start(probe);
			const double h0 = host_now();
			for (int i = 0; i < launches; i++) {
				CHECK(cudaMemsetAsync(flush_buf, i, flush_bytes));
				clk_mark<<<1, 1>>>(d_marks + 2 * i);
				CHECK(cudaGetLastError());
				if (mine)
					ours();
				else
					theirs();
				CHECK(cudaGetLastError());
				clk_mark<<<1, 1>>>(d_marks + 2 * i + 1);
				CHECK(cudaGetLastError());
			}
			CHECK(cudaDeviceSynchronize());
			const double h1 = host_now();
			int sm = 0;
			const int n = clk_probe_end(probe, &sm);
			CHECK(cudaMemcpy(marks.data(), d_marks, (size_t)2 * launches * 8,
			                 cudaMemcpyDeviceToHost));
			std::vector<double> us, mhz, fl;
			for (int i = 1; i < launches; i++) { /* the first a warm-up */
				us.push_back((marks[2 * i + 1] - marks[2 * i]) * 1e-3);
				const double f =
				    mhz_between(pairs, n, marks[2 * i], marks[2 * i + 1]);
				if (f > 0)
					mhz.push_back(f);
				const double ff =
				    mhz_between(pairs, n, marks[2 * i - 1], marks[2 * i]);
				if (ff > 0)
					fl.push_back(ff);
			}
			char label[96];
			if (mine)
				snprintf(label, sizeof(label), "%s", name);
			else
				snprintf(label, sizeof(label), "cuBLASLt algo %d", best_a);
			printf(
			    "  %-28s %9.2f %9.2f %8.0f %8.0f %8.0f %8.0f %14.3f %14.3f  (probe on "
			    "SM %d, %d samples)\n",
			    label, pct(us, 0.5), pct(us, 0.9), pct(mhz, 0.1), pct(mhz, 0.5),
			    pct(mhz, 0.9), pct(fl, 0.5), h0, h1, sm, n);
			fflush(stdout);
		}
		lt_wgrad_close(&w);
	}
	return 0;
}
