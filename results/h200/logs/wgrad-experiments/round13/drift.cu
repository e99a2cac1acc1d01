/* drift.cu: how far apart the CTAs of the wgrad kernel run, and when each ends (thirteenth round
 * of ../../wgrad-experiments.md). Not part of the build.
 *
 *   mkdir -p /tmp/trace && python3 results/h200/logs/wgrad-experiments/round13/trace.py \
 *       /tmp/trace/gemm_wgmma_trace.cu
 *   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Ikernels -Iharness -I/tmp/trace \
 *       -o build-exp/drift results/h200/logs/wgrad-experiments/round13/drift.cu -lcublasLt
 *   build-exp/drift [T [N [LAUNCHES]]]   (defaults: T = 65537, N = 4096 and 5120, 10 launches,
 *                                          the first a warm-up)
 *
 * The kernel is kernels/gemm_wgmma.cu with trace.py's hooks: thread 0 of each CTA writes
 * %globaltimer at its start, after every fourth K-block its consumers finish, and after its tile's
 * adds. For the split programs that matter at d_out 128 (n128 and n256 with 4 splits at 4096, 3 at
 * 5120) and, for comparison, d_out 32 (n128:s4 / s3), launched as kernels.c launches them (FP32
 * out: a memset of the output, then the kernel adding into it) after the harness's L2 flush, this
 * times each variant (below) untraced, then prints for 2 traced launches of each (calls 1 and 2
 * ran the first form of this program: one median of LAUNCHES launches, 3 traced launches):
 *   - when the CTAs end, from the first CTA's start: the first, 10 %, 50 %, 90 %, the last, and
 *     the mean; the gap between the last and the mean is what a split waits for its slowest CTAs;
 *   - how far apart they are along the way: at a quarter, a half and three quarters of the
 *     K-blocks, the spread (last − first) of the times at which the CTAs got there, in µs and in
 *     K-blocks of the median pace;
 *   - the mean end by L2 half of the CTA's SM (halves.h) and by split;
 *   - by GPC (found by gpc_probe: SMs that ran one cluster of 16 or 8 share a GPC): its SMs, the
 *     CTAs on it, their mean and last end;
 *   - with DRIFT_DIR set, every CTA's SM, GPC, half, split, start, end and milestones in
 *     DRIFT_DIR/trace-T-NxM-n<bn>-t<100 TAIL + CHUNK>-<trace>.txt.
 * cuBLASLt's fastest of its 8 heuristic algorithms is timed the same way for reference, and every
 * result of ours is checked against its algorithm 0.
 *
 * DRIFT_STEAL="0 4:4 8:2 …" (default "0") names the variants: TAIL:CHUNK shares the last TAIL
 * chunks of CHUNK K-blocks of each split with the tile's other splits (gq_wg_params.steal and
 * steal_kb; 0 the static shares). Each is checked against the first, then all are timed in 5
 * interleaved rounds (the median of LAUNCHES launches each), then traced. Variants other than
 * "0" need the kernel of shared-tails.patch and drift.cu built with -DDRIFT_TAILS:
 *
 *   git apply results/h200/logs/wgrad-experiments/round13/shared-tails.patch   (then as above,
 *       with -DDRIFT_TAILS; calls 3 to 6 ran the patch's successive states, see run*.sh)
 */
#include "gemm_wgmma_trace.cu" /* first: diag.h, stream.h and halves.h build on it */

#include "../diag.h"
#include "../stream.h"

#include "../round12/halves.h"

#include <math.h>

#include <algorithm>
#include <functional>
#include <map>
#include <vector>

/* gpc_probe: one CTA per SM (all the shared memory), in clusters of 16, each CTA writing its SM
 * and its cluster: a cluster runs on one GPC, so SMs seen in one cluster share a GPC. */
__global__ void gpc_probe(int *sm_of)
{
	extern __shared__ unsigned char probe_smem[];
	if (threadIdx.x == 0) {
		unsigned sm, c;
		asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
		asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(c));
		sm_of[blockIdx.x] = (int)sm;
		probe_smem[0] = (unsigned char)c;
		/* stay a while, so that the clusters of a wave run side by side */
		unsigned long long t0 = 0, t = 0;
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
		do
			asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
		while (t - t0 < 20000);
	}
}

/* The GPC of each SM (by the smallest SM id of its GPC; -1 where no cluster of 16 ran), from
 * rounds of 1024 clusters of 16 (and of 8, which reach GPCs of fewer than 16 free SMs). */
static std::vector<int> gpc_of_sms(int sms)
{
	std::vector<int> parent(HV_MAX_SM);
	for (int i = 0; i < HV_MAX_SM; i++)
		parent[i] = i;
	std::function<int(int)> find = [&](int a) {
		return parent[a] == a ? a : parent[a] = find(parent[a]);
	};
	std::vector<bool> seen(HV_MAX_SM, false);
	int max_smem = 0, device = 0;
	CHECK(cudaGetDevice(&device));
	CHECK(cudaDeviceGetAttribute(&max_smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
	CHECK(
	    cudaFuncSetAttribute(gpc_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));
	CHECK(cudaFuncSetAttribute(gpc_probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
	for (int cl : {16, 8}) {
		const int ctas = 1024 * cl;
		int *d;
		CHECK(cudaMalloc(&d, ctas * sizeof(int)));
		cudaLaunchConfig_t cfg = {};
		cudaLaunchAttribute at[1];
		at[0].id = cudaLaunchAttributeClusterDimension;
		at[0].val.clusterDim.x = cl, at[0].val.clusterDim.y = 1, at[0].val.clusterDim.z = 1;
		cfg.gridDim = dim3(ctas), cfg.blockDim = dim3(32), cfg.dynamicSmemBytes = max_smem;
		cfg.attrs = at, cfg.numAttrs = 1;
		CHECK(cudaLaunchKernelEx(&cfg, gpc_probe, d));
		CHECK(cudaDeviceSynchronize());
		std::vector<int> h(ctas);
		CHECK(cudaMemcpy(h.data(), d, ctas * sizeof(int), cudaMemcpyDeviceToHost));
		CHECK(cudaFree(d));
		for (int c = 0; c < ctas; c += cl)
			for (int i = 0; i < cl; i++) {
				seen[h[c + i]] = true;
				parent[find(h[c + i])] = find(h[c]);
			}
	}
	std::vector<int> gpc(sms, -1), low(HV_MAX_SM, HV_MAX_SM);
	for (int s = 0; s < sms; s++)
		if (seen[s])
			low[find(s)] = std::min(low[find(s)], s);
	for (int s = 0; s < sms; s++)
		if (seen[s])
			gpc[s] = low[find(s)];
	return gpc;
}

struct drift_case {
	int64_t m;
	int bm, bn;
};

int main(int argc, char **argv)
{
	int64_t T = 0, only_n = 0;
	const diag_gpu gpu = stream_open(argc, argv, "drift", &T, &only_n);
	uint16_t *x, *g;
	float *out;
	wgrad_alloc(T, &x, &g, &out, false);
	/* the halves first, with x as scratch: its values are filled in after */
	CHECK(cudaMemset(x, 0, (size_t)T * 5120 * 2));
	const hv_halves halves =
	    hv_measure_halves(x, (size_t)T * 5120 * 2, gpu.flush, gpu.flush_bytes);
	const std::vector<int> gpc = gpc_of_sms(gpu.sms);
	{
		std::map<int, std::vector<int>> by;
		for (int sm = 0; sm < gpu.sms; sm++)
			by[gpc[sm]].push_back(sm);
		printf("# GPCs (clusters of 16 and 8): %zu;", by.size());
		for (auto &kv : by) {
			printf(" [");
			for (size_t i = 0; i < kv.second.size(); i++)
				printf("%s%d", i ? " " : "", kv.second[i]);
			printf("]");
		}
		printf("\n");
	}
	const char *dump_dir = getenv("DRIFT_DIR");
	std::vector<int> steals, steal_kbs; /* shared tails (chunks) and K-blocks per chunk */
	{
		const char *e = getenv("DRIFT_STEAL");
		for (const char *q = e ? e : "0"; *q;) {
			char *end;
			long v = strtol(q, &end, 10);
			long kb = 0;
			if (end != q && *end == ':') {
				const char *k = end + 1;
				kb = strtol(k, &end, 10);
				if (end == k || kb < 1)
					v = -1;
			}
			if (end == q || v < 0) {
				fprintf(stderr,
				        "drift: DRIFT_STEAL: a list of TAIL[:CHUNK] (tail chunks "
				        "≥ 0, K-blocks per chunk ≥ 1)\n");
				return 2;
			}
			steals.push_back((int)v), steal_kbs.push_back((int)kb);
			q = end;
			while (*q == ' ' || *q == ',')
				q++;
		}
	}
	wgrad_fill(x, g, T);
	unsigned long long *d_trace;
	const size_t max_ctas = 1024;
	CHECK(cudaMalloc(&d_trace, max_ctas * GQX_TSLOTS * 8));
	cublasLtHandle_t lt;
	LT(cublasLtCreate(&lt));
	printf("# T %lld, %d SMs, median of %d launches after a warm-up; traces of 3 more\n",
	       (long long)T, gpu.sms, launches - 1);
	const drift_case cases[] = {{128, 128, 128}, {128, 64, 256}, {32, 64, 128}};
	for (int64_t N : {4096, 5120}) {
		if (only_n && N != only_n)
			continue;
		for (int64_t M : {128, 32}) {
			const size_t ob = (size_t)M * N * 4;
			std::vector<float> ref, got(M * N);
			int best_a = 0, found = 0;
			const float best =
			    lt_fastest(lt, M, N, T, x, g, out, &ref, &best_a, &found);
			printf("\n%lldx%lld  cuBLASLt fastest of %d (algo %d)  %7.1f us\n",
			       (long long)N, (long long)M, found, best_a, best);
			for (const drift_case &c : cases) {
				if (c.m != M)
					continue;
				gq_wg_params wp;
				static gq_wg_maps maps;
				split_plan(&wp, &maps, g, x, out, M, N, T, c.bm, c.bn,
				           N == 4096 ? 4 : 3, gpu.l2, gpu.sms);
				const int64_t tiles = ((M + c.bm - 1) / c.bm) * (N / c.bn);
				const int64_t ctas = tiles * wp.splits;
				auto ours = [&] {
					CHECK(cudaMemsetAsync(out, 0, ob));
					CHECK(gq_wg_launch(&wp, &maps, 0));
				};
				/* every variant checked against the first, then timed in rounds,
				 * each round every variant in turn (ROUNDS medians of LAUNCHES
				 * launches) */
				const size_t nv = steals.size();
				std::vector<int32_t *> scheds(nv, NULL);
				std::vector<float> fixed;
				auto use = [&](size_t v) {
#ifdef DRIFT_TAILS
					wp.steal = steals[v], wp.steal_kb = steal_kbs[v];
					wp.sched = scheds[v];
#else
					(void)v;
#endif
				};
				for (size_t v = 0; v < nv; v++) {
#ifndef DRIFT_TAILS
					if (steals[v] > 0) {
						fprintf(stderr, "drift: built without DRIFT_TAILS: "
						                "no shared tails\n");
						return 2;
					}
#else
					if (steals[v] > 0) {
						use(v);
						const size_t sb = (size_t)gq_wg_sched_ints(&wp) * 4;
						CHECK(cudaMalloc(&scheds[v], sb));
						CHECK(cudaMemset(scheds[v], 0, sb));
					}
#endif
					use(v);
					ours();
					CHECK(cudaDeviceSynchronize());
					CHECK(cudaMemcpy(got.data(), out, ob,
					                 cudaMemcpyDeviceToHost));
					if (fixed.empty())
						fixed = got;
					printf("%lldx%lld  n%d:s%d (%dx%d, %lld CTAs, cluster %d, "
					       "share %d), "
					       "tails of %d chunks of %d K-blocks: max |diff| / "
					       "max |ref| %.2e, "
					       "against the first variant %.2e\n",
					       (long long)N, (long long)M, c.bn, wp.splits, c.bm,
					       c.bn, (long long)ctas, wp.cluster, wp.share,
					       steals[v], steal_kbs[v], max_rel(got, ref),
					       max_rel(got, fixed));
				}
				const int rounds = 5;
				std::vector<std::vector<float>> times(nv);
				for (int rd = 0; rd < rounds; rd++)
					for (size_t v = 0; v < nv; v++) {
						use(v);
						times[v].push_back(median_us(ours));
					}
				for (size_t v = 0; v < nv; v++) {
					std::vector<float> t = times[v];
					std::sort(t.begin(), t.end());
					printf("%lldx%lld  n%d:s%d tails %d:%d  %7.1f us (median "
					       "of %d rounds; "
					       "%.1f..%.1f)\n",
					       (long long)N, (long long)M, c.bn, wp.splits,
					       steals[v], steal_kbs[v], t[t.size() / 2], rounds,
					       t.front(), t.back());
				}
				for (size_t v = 0; v < nv; v++) {
					use(v);
					const int steal = steals[v];
					if ((size_t)ctas > max_ctas)
						continue;
					printf("  traces, tails %d:%d\n", steals[v], steal_kbs[v]);
					const int nkb = wp.kb_per_split;
					for (int r = 0; r < 2; r++) {
						CHECK(cudaMemset(d_trace, 0,
						                 max_ctas * GQX_TSLOTS * 8));
						CHECK(cudaMemcpyToSymbol(gqx_trace, &d_trace,
						                         sizeof(d_trace)));
						CHECK(
						    cudaMemsetAsync(flush_buf, r + 1, flush_bytes));
						ours();
						CHECK(cudaGetLastError());
						CHECK(cudaDeviceSynchronize());
						unsigned long long *off = NULL;
						CHECK(cudaMemcpyToSymbol(gqx_trace, &off,
						                         sizeof(off)));
						std::vector<unsigned long long> h((size_t)ctas *
						                                  GQX_TSLOTS);
						CHECK(cudaMemcpy(h.data(), d_trace, h.size() * 8,
						                 cudaMemcpyDeviceToHost));
						unsigned long long t0 = ~0ull;
						for (int64_t b = 0; b < ctas; b++)
							t0 = std::min(t0, h[b * GQX_TSLOTS]);
						std::vector<double> ends, starts;
						double half_sum[2] = {0, 0},
						       split_sum[4] = {0, 0, 0, 0};
						int half_n[2] = {0, 0}, split_n[4] = {0, 0, 0, 0};
						for (int64_t b = 0; b < ctas; b++) {
							const unsigned long long *tr =
							    &h[b * GQX_TSLOTS];
							const double e =
							    (tr[GQX_TSLOTS - 1] - t0) / 1e3;
							ends.push_back(e);
							starts.push_back((tr[0] - t0) / 1e3);
							const int hf =
							    halves.half[tr[1] % HV_MAX_SM];
							half_sum[hf] += e, half_n[hf]++;
							const int z = (int)(b / tiles);
							split_sum[z] += e, split_n[z]++;
						}
						double mean = 0;
						for (double e : ends)
							mean += e / ends.size();
						printf("  trace %d: starts within %.2f us; ends: "
						       "first %.1f, 10%% %.1f, "
						       "50%% %.1f, 90%% %.1f, last %.1f, mean %.1f "
						       "(last − mean %.2f "
						       "us, %.1f %%)\n",
						       r, pct(starts, 1.0), pct(ends, 0),
						       pct(ends, 0.1), pct(ends, 0.5),
						       pct(ends, 0.9), pct(ends, 1.0), mean,
						       pct(ends, 1.0) - mean,
						       100 * (pct(ends, 1.0) - mean) / mean);
						/* the last milestone every CTA has: its share's
						 * last multiple of 4 */
						const int last_ms =
						    std::min(nkb / 4 - 1 - 1, GQX_TSLOTS - 4);
						const double pace =
						    (pct(ends, 0.5)) / nkb; /* µs per K-block */
						printf("           along the way (median pace %.3f "
						       "us per K-block):",
						       pace);
						for (double q : {0.25, 0.5, 0.75, 1.0}) {
							const int ms = (int)(q * last_ms);
							std::vector<double> at;
							for (int64_t b = 0; b < ctas; b++)
								if (h[b * GQX_TSLOTS + 2 +
								      ms]) /* a CTA whose tail was
								            * taken may not get
								            * there */
									at.push_back(
									    (h[b * GQX_TSLOTS + 2 +
									       ms] -
									     t0) /
									    1e3);
							if (at.empty())
								continue;
							const double spread =
							    pct(at, 1.0) - pct(at, 0.0);
							const double mid =
							    pct(at, 0.9) - pct(at, 0.1);
							printf("  K-block %d: spread %.2f us (%.1f "
							       "K-blocks), 10-90%% "
							       "%.2f us",
							       4 * ms + 3, spread, spread / pace,
							       mid);
						}
						printf("\n           mean end by L2 half: %.1f (%d "
						       "CTAs), %.1f (%d); by "
						       "split:",
						       half_n[0] ? half_sum[0] / half_n[0] : 0,
						       half_n[0],
						       half_n[1] ? half_sum[1] / half_n[1] : 0,
						       half_n[1]);
						for (int z = 0; z < wp.splits; z++)
							printf(" %.1f", split_n[z] ? split_sum[z] /
							                                 split_n[z]
							                           : 0);
						printf("\n           by GPC (first SM: SMs, CTAs, "
						       "mean end, last end):");
						std::map<int, std::vector<double>> g_end;
						std::map<int, int> g_sms;
						for (int sm = 0; sm < gpu.sms; sm++)
							g_sms[gpc[sm]]++;
						for (int64_t b = 0; b < ctas; b++) {
							const unsigned long long *tr =
							    &h[b * GQX_TSLOTS];
							g_end[gpc[tr[1] % gpu.sms]].push_back(
							    (tr[GQX_TSLOTS - 1] - t0) / 1e3);
						}
						for (auto &kv : g_sms) {
							const std::vector<double> &e =
							    g_end[kv.first];
							double m = 0;
							for (double v : e)
								m += v / e.size();
							printf("  %d: %d, %zu, %.1f, %.1f",
							       kv.first, kv.second, e.size(),
							       e.empty() ? 0 : m,
							       e.empty() ? 0 : pct(e, 1.0));
						}
						printf("\n");
						if (dump_dir) {
							char path[512];
							snprintf(
							    path, sizeof(path),
							    "%s/"
							    "trace-%lld-%lldx%lld-n%d-t%d-%d.txt",
							    dump_dir, (long long)T, (long long)N,
							    (long long)M, c.bn,
							    steal * 100 + steal_kbs[v], r);
							FILE *f = fopen(path, "w");
							if (f) {
								fprintf(f,
								        "# cta sm gpc half split "
								        "start_us end_us "
								        "then the time after every "
								        "fourth K-block\n");
								for (int64_t b = 0; b < ctas; b++) {
									const unsigned long long *
									    tr = &h[b * GQX_TSLOTS];
									const int sm =
									    (int)(tr[1] % gpu.sms);
									fprintf(
									    f,
									    "%lld %d %d %d %lld "
									    "%.3f %.3f",
									    (long long)b, sm,
									    gpc[sm],
									    halves.half[sm],
									    (long long)(b / tiles),
									    (tr[0] - t0) / 1e3,
									    (tr[GQX_TSLOTS - 1] -
									     t0) /
									        1e3);
									for (int ms = 0;
									     ms <= last_ms; ms++)
										fprintf(
										    f, " %.3f",
										    tr[2 + ms]
										        ? (tr[2 +
										              ms] -
										           t0) /
										              1e3
										        : -1.0);
									fprintf(f, "\n");
								}
								fclose(f);
							}
						}
					}
					fflush(stdout);
				}
				for (int32_t *q : scheds)
					if (q)
						CHECK(cudaFree(q));
			}
		}
	}
	LT(cublasLtDestroy(lt));
	return 0;
}
