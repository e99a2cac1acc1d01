/* energy.cu: the time, energy and SM clock of the wgrad GEMMs at d_out 128, ours with more or fewer
 * instructions against cuBLASLt's (fourteenth round of ../../wgrad-experiments.md). Not part of
 * the build.
 *
 *   mkdir -p /tmp/pad && git show 7f660a7:kernels/gemm_wgmma.cu > /tmp/pad/src.cu
 *   python3 results/h200/logs/wgrad-experiments/round14/pad.py /tmp/pad/gemm_wgmma_pad.cu \
 *       /tmp/pad/src.cu
 *   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Ikernels -Iharness -I/tmp/pad \
 *       -o build-exp/energy results/h200/logs/wgrad-experiments/round14/energy.cu -lcublasLt \
 *       -lcuda -ldl
 *   CUDA_MODULE_LOADING=EAGER build-exp/energy [T [N [LAUNCHES]]]
 *       (defaults: T = 65537, N = 4096 and 5120, medians of 15 launches, the first a warm-up)
 *
 * clock.cu (call 1) found the SM clock at 1.3-1.5 GHz while these GEMMs run, ours and cuBLASLt's,
 * against about 1.8 GHz at d_out 32 and 1.98 GHz during the flushes, with the board near its 700 W
 * limit: at d_out 128 they are held back by power, and then a kernel is as fast as the energy it
 * spends on an op is small. Our consumers issue about 2.3 times as many instructions as
 * cuBLASLt's (ninth round). This asks whether instructions cost time there: pad.py's kernel lets
 * the consumers run PAD rounds of integer work (about 18 instructions a warp each) per K-block,
 * which changes nothing they compute; the loop body is about 87 instructions a warp without it.
 *
 * For the split programs of clock.cu, planned as kernels.c plans them (FP32 out: a memset of out,
 * then the kernel adding into it), checked against cuBLASLt's algorithm 0 at every PAD: the median
 * op time (CUDA events, each launch after the harness's L2 flush) at PAD = 0, 2, 4 and of
 * cuBLASLt's fastest of its 8 heuristic algorithms, in 3 interleaved rounds; then for PAD = 0, 4,
 * cuBLASLt's fastest and the flush alone, ENERGY_LAUNCHES (default 8000) launches each after the
 * flush, with NVML's energy counter read before and after (the flush's energy per launch is taken
 * off the others') and the probe's mean SM clock over them.
 */
#include "gemm_wgmma_pad.cu" /* first: diag.h, stream.h and probe.h build on it */

#include "../diag.h"
#include "../stream.h"
#include "probe.h"

#include <dlfcn.h>

/* NVML's energy counter (mJ since the driver loaded), through dlopen as harness/clocks.c does. */
typedef int (*nvml_init_fn)(void);
typedef int (*nvml_handle_fn)(unsigned, void **);
typedef int (*nvml_energy_fn)(void *, unsigned long long *);
static nvml_energy_fn nvml_energy;
static void *nvml_device;

static void nvml_open(void)
{
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "energy: dlopen libnvidia-ml.so.1: %s\n", dlerror());
		exit(1);
	}
	nvml_init_fn init = (nvml_init_fn)dlsym(lib, "nvmlInit_v2");
	nvml_handle_fn handle = (nvml_handle_fn)dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
	nvml_energy = (nvml_energy_fn)dlsym(lib, "nvmlDeviceGetTotalEnergyConsumption");
	if (!init || !handle || !nvml_energy || init() != 0 || handle(0, &nvml_device) != 0) {
		fprintf(stderr, "energy: NVML's energy counter is not available\n");
		exit(1);
	}
}

static unsigned long long energy_mj(void)
{
	unsigned long long e = 0;
	if (nvml_energy(nvml_device, &e) != 0) {
		fprintf(stderr, "energy: nvmlDeviceGetTotalEnergyConsumption failed\n");
		exit(1);
	}
	return e;
}

int main(int argc, char **argv)
{
	launches = 15;
	int64_t T = 0, only_n = 0;
	const diag_gpu gpu = stream_open(argc, argv, "energy", &T, &only_n);
	const int energy_launches =
	    getenv("ENERGY_LAUNCHES") ? atoi(getenv("ENERGY_LAUNCHES")) : 8000;
	nvml_open();
	uint16_t *x, *g;
	float *out;
	wgrad_alloc(T, &x, &g, &out, true);
	clk_probe_buf probe = clk_probe_open(1 << 24);
	const std::vector<unsigned long long> &pairs = probe.host;
	cublasLtHandle_t lt;
	LT(cublasLtCreate(&lt));
	printf("# T %lld, %d SMs; op times: medians of %d launches after the L2 flush, 3 rounds; "
	       "energy over %d launches\n",
	       (long long)T, gpu.sms, launches - 1, energy_launches);
	const int pads[] = {0, 2, 4};
	for (const clk_case &c : clk_cases_at(only_n)) {
		const int64_t M = c.m, N = c.n;
		const size_t ob = (size_t)M * N * 4;
		std::vector<float> ref, got(M * N);
		int best_a = 0, found = 0;
		lt_fastest(lt, M, N, T, x, g, out, &ref, &best_a, &found);
		lt_wgrad w;
		lt_wgrad_open(lt, &w, M, N, T, 8);
		gq_wg_params wp;
		static gq_wg_maps maps;
		split_plan(&wp, &maps, g, x, out, M, N, T, c.bm, c.bn, c.splits, gpu.l2, gpu.sms);
		auto set_pad = [&](int pad) {
			CHECK(cudaMemcpyToSymbol(gqx_pad, &pad, sizeof(pad)));
		};
		auto ours = [&] {
			CHECK(cudaMemsetAsync(out, 0, ob));
			CHECK(gq_wg_launch(&wp, &maps, 0));
		};
		auto theirs = [&] { lt_wgrad_run(lt, &w, best_a, x, g, out); };
		printf("\n%lldx%lld n%d:s%d (cuBLASLt's fastest: algo %d of %d)\n", (long long)N,
		       (long long)M, c.bn, c.splits, best_a, found);
		for (int pad : pads) {
			set_pad(pad);
			ours();
			CHECK(cudaDeviceSynchronize());
			CHECK(cudaMemcpy(got.data(), out, ob, cudaMemcpyDeviceToHost));
			printf("  PAD %d: max |diff| / max |ref| against cuBLASLt algo 0 %.2e\n",
			       pad, max_rel(got, ref));
		}
		const int nv = 4; /* PAD 0, 2, 4, cuBLASLt */
		std::vector<std::vector<double>> us(nv);
		for (int round = 0; round < 3; round++)
			for (int v = 0; v < nv; v++) {
				if (v < 3) {
					set_pad(pads[v]);
					us[v].push_back(median_us(ours));
				} else {
					us[v].push_back(median_us(theirs));
				}
			}
		for (int v = 0; v < nv; v++) {
			char label[32];
			if (v < 3)
				snprintf(label, sizeof(label), "ours, PAD %d", pads[v]);
			else
				snprintf(label, sizeof(label), "cuBLASLt algo %d", best_a);
			printf("  %-18s op µs %8.2f %8.2f %8.2f  (min %.2f)\n", label, us[v][0],
			       us[v][1], us[v][2], pct(us[v], 0));
		}
		/* energy: PAD 0, PAD 4, cuBLASLt, the flush alone */
		double flush_mj = 0;
		const char *names[] = {"flush alone", "ours, PAD 0", "ours, PAD 4", "cuBLASLt"};
		for (int v = 0; v < 4; v++) {
			if (v == 1)
				set_pad(0);
			if (v == 2)
				set_pad(4);
			clk_probe_start(probe);
			const unsigned long long e0 = energy_mj();
			const double h0 = host_now();
			for (int i = 0; i < energy_launches; i++) {
				CHECK(cudaMemsetAsync(flush_buf, i, flush_bytes));
				if (v == 1 || v == 2)
					ours();
				else if (v == 3)
					theirs();
				CHECK(cudaGetLastError());
			}
			CHECK(cudaDeviceSynchronize());
			const double h1 = host_now();
			const unsigned long long e1 = energy_mj();
			const int n = clk_probe_end(probe, NULL);
			const double mj = (double)(e1 - e0) / energy_launches;
			if (v == 0)
				flush_mj = mj;
			const double mhz =
			    n > 1 ? mhz_between(pairs, n, pairs[0], pairs[2 * (n - 1)]) : 0;
			printf(
			    "  %-18s %8.3f mJ a launch, %8.3f mJ the op (the flush's taken off), "
			    "%7.2f µs a launch, %6.1f W, SM clock %5.0f MHz (%d samples)\n",
			    names[v], mj, mj - flush_mj, (h1 - h0) / energy_launches * 1e6,
			    (e1 - e0) / (h1 - h0) / 1000.0, mhz, n);
			fflush(stdout);
		}
		set_pad(0);
		lt_wgrad_close(&w);
	}
	return 0;
}
