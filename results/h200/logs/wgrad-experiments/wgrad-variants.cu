/* wgrad-variants.cu: the wgrad kernel of kernels/gemm_wgmma.cu with the experiment knobs of
 * gq_wg_params (x's and g's L2 policies, an L2 prefetch of x ahead of the ring, g's box exactly
 * 32 columns wide, x in one 3D copy per stage) against cuBLASLt's top 8, at the memory-bound
 * wgrad points where gemmq:split loses at large T; and the K-blocks of 128 rows and the dynamic
 * K chunks of variants/dynamic-k-candidate*.patch. A diagnostic (../wgrad-experiments.md), not
 * part of the build; it needs the knobs, which are not on main:
 *
 *   git apply results/h200/logs/wgrad-experiments/variants/knobs.patch   (then build, then
 *   git checkout kernels/ to return to main)
 *
 * Each variant is checked against an FP64 dot product at 1024 sampled outputs (as is every
 * cuBLASLt algorithm); a trace launch of each records when every CTA started and ended.
 *
 * Each shape runs as the best gemmq:split program does (its tile and splits, FP32 out, atomic
 * adds into a zeroed output), on uniform random inputs. After the checks, all variants and all
 * eight cuBLASLt algorithms are timed in rounds
 * (each round times each of them once, in turn, so that drift hits all alike): each launch
 * follows a 2 × L2 memset; ours also a memset of its output, outside the timed span, as in the
 * harness, whose CUPTI span has the kernels only. CUDA events; the median over the rounds.
 *
 *   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Ikernels -Iharness \
 *        -o build/wgrad-variants results/h200/logs/wgrad-experiments/wgrad-variants.cu -lcublasLt
 *   build/wgrad-variants [T [ROUNDS]]     (defaults: T = 65537, 21 rounds)
 */
#include "../../../../kernels/gemm_wgmma.cu"
#include "diag.h"

#include <algorithm>
#include <cublasLt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string>
#include <vector>

/* Uniform values in [-1, 1) from a hash of the index, as BF16 bits. */
__global__ void fill(uint16_t *p, int64_t n, uint32_t seed)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x) {
		uint32_t h = (uint32_t)i * 2654435761u ^ seed;
		h ^= h >> 15, h *= 2246822519u, h ^= h >> 13, h *= 3266489917u, h ^= h >> 16;
		const float v = (float)(h >> 8) / 8388608.f - 1.f;
		p[i] = __bfloat16_as_ushort(__float2bfloat16(v));
	}
}

/* out[m][n] = sum_t g[t][m] x[t][n] in FP64 at sampled (m, n): one block per sample. */
#define SAMPLES 1024
__global__ void sample_ref(const uint16_t *g, const uint16_t *x, int64_t T, int64_t M, int64_t N,
                           double *res)
{
	const int64_t m = ((int64_t)blockIdx.x * 7919) % M, n = ((int64_t)blockIdx.x * 104729) % N;
	double acc = 0;
	for (int64_t t = threadIdx.x; t < T; t += blockDim.x)
		acc += (double)__bfloat162float(__ushort_as_bfloat16(g[t * M + m])) *
		       (double)__bfloat162float(__ushort_as_bfloat16(x[t * N + n]));
	__shared__ double part[256];
	part[threadIdx.x] = acc;
	__syncthreads();
	for (int w = 128; w > 0; w /= 2) {
		if (threadIdx.x < w)
			part[threadIdx.x] += part[threadIdx.x + w];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		res[blockIdx.x] = part[0];
}

/* max |o - ref| / max |ref| over the samples */
static double sample_err(const std::vector<float> &o, const std::vector<double> &ref, int64_t M,
                         int64_t N)
{
	double e = 0, r = 0;
	for (int i = 0; i < SAMPLES; i++) {
		const int64_t m = ((int64_t)i * 7919) % M, n = ((int64_t)i * 104729) % N;
		e = std::max(e, fabs((double)o[m * N + n] - ref[i]));
		r = std::max(r, fabs(ref[i]));
	}
	return e / r;
}

struct variant {
	const char *name;
	int xpol, gpol, pf, gbox, x3d, g3d, bk, dyn, chunk_kb;
};

static const variant variants[] = {
    {"committed (x evict_first, g evict_last)", 0, 0, 0, 0, 0, 0, 64, 0, 0},
    {"x 3D + g box 32 / g 3D", 0, 0, 0, 1, 1, 1, 64, 0, 0},
    {"BK 128, x 3D + g box 32 / g 3D", 0, 0, 0, 1, 1, 1, 128, 0, 0},
    {"dynamic chunks of 256 rows, x 3D + g 32 / 3D", 0, 0, 0, 1, 1, 1, 64, 1, 4},
    {"dynamic 128 rows, x 3D + g 32 / 3D", 0, 0, 0, 1, 1, 1, 64, 1, 2},
    {"BK 128, dynamic 256 rows, x 3D + g 32 / 3D", 0, 0, 0, 1, 1, 1, 128, 1, 2},
    {"BK 128, dynamic 128 rows, x 3D + g 32 / 3D", 0, 0, 0, 1, 1, 1, 128, 1, 1},
    {"BK 128, dynamic 256, x 3D, g 32 / 3D, x last", 2, 0, 0, 1, 1, 1, 128, 1, 2},
};
#define NV (int)(sizeof(variants) / sizeof(variants[0]))

static void *flush_buf;
static size_t flush_bytes;

struct shape {
	int64_t n, m;
	int splits, bm, bn;
	const char *program;
};

static void run_shape(const shape &sh, const uint16_t *x, const uint16_t *g, int64_t T, int rounds,
                      cublasLtHandle_t lt)
{
	const int64_t M = sh.m, N = sh.n;
	float *out = NULL, *ref = NULL;
	CHECK(cudaMalloc(&out, (size_t)M * N * sizeof(float)));
	CHECK(cudaMalloc(&ref, (size_t)M * N * sizeof(float)));

	lt_wgrad w;
	lt_wgrad_open(lt, &w, M, N, T, 8);
	const int found = w.found;
	auto lt_run = [&](int a, float *o) { lt_wgrad_run(lt, &w, a, x, g, o); };
	double *d_samp = NULL;
	CHECK(cudaMalloc(&d_samp, SAMPLES * sizeof(double)));
	sample_ref<<<SAMPLES, 256>>>(g, x, T, M, N, d_samp);
	CHECK(cudaGetLastError());
	std::vector<double> samp(SAMPLES);
	CHECK(cudaMemcpy(samp.data(), d_samp, SAMPLES * sizeof(double), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(d_samp));
	std::vector<float> h_ref((size_t)M * N), h_out((size_t)M * N);
	for (int a = 0; a < found; a++) {
		lt_run(a, ref);
		CHECK(cudaDeviceSynchronize());
		CHECK(cudaMemcpy(h_ref.data(), ref, h_ref.size() * 4, cudaMemcpyDeviceToHost));
		printf("#   cuBLASLt algo %d: max |out - FP64| / max |FP64| over %d samples = %.2e\n", a,
		       SAMPLES, sample_err(h_ref, samp, M, N));
	}
	lt_run(0, ref);
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpy(h_ref.data(), ref, h_ref.size() * 4, cudaMemcpyDeviceToHost));

	/* ours */
	std::vector<gq_wg_params> ps(NV);
	std::vector<gq_wg_maps> maps(NV);
	std::vector<int> usable(NV, 0);
	std::vector<int32_t *> queues(NV, nullptr);
	for (int v = 0; v < NV; v++) {
		const variant &va = variants[v];
		const int gbox = va.gbox && M <= 32 && sh.bm == 64, g3d = va.g3d && sh.bm == 128;
		gq_wg_params &p = ps[v];
		memset(&p, 0, sizeof(p));
		memset(&maps[v], 0, sizeof(maps[v]));
		p.a = g, p.b = x, p.out = out, p.ws = out;
		p.m = M, p.n = N, p.k = T;
		p.bm = sh.bm, p.bn = sh.bn;
		p.splits = sh.splits;
		p.mode = GQ_MMA_ATOMIC;
		p.out_fp32 = 1;
		p.xpol = va.xpol, p.gpol = va.gpol, p.pf = va.pf, p.gbox = gbox, p.x3d = va.x3d;
		p.g3d = g3d, p.bk = va.bk;
		p.dyn = va.dyn, p.chunk_kb = va.chunk_kb;
		const int64_t tiles = (M + sh.bm - 1) / sh.bm * (N / sh.bn);
		CHECK(cudaMalloc(&queues[v], (size_t)(tiles + 1) * sizeof(int32_t)));
		CHECK(cudaMemset(queues[v], 0, (size_t)(tiles + 1) * sizeof(int32_t)));
		p.queue = queues[v];
		int threads = 0, per_sm = 0;
		size_t smem = 0;
		CHECK(gq_wg_setup_bk(sh.bm, sh.bn, va.bk, &threads, &smem, &per_sm));
		const int64_t kblocks = (T + va.bk - 1) / va.bk;
		p.kb_per_split = (int32_t)((kblocks + sh.splits - 1) / sh.splits);
		const char *why = "";
		if (gq_wg_encode(&p, &maps[v], &why) != cudaSuccess) {
			printf("#   %-42s  not run: %s\n", va.name, why);
			continue;
		}
		CHECK(cudaMemset(out, 0, (size_t)M * N * 4));
		CHECK(gq_wg_launch(&p, &maps[v], 0));
		CHECK(cudaDeviceSynchronize());
		CHECK(cudaMemcpy(h_out.data(), out, h_out.size() * 4, cudaMemcpyDeviceToHost));
		const double err = sample_err(h_out, samp, M, N);
		const int ok = err <= 1e-5;
		printf("#   %-42s  max |out - FP64| / max |FP64| over %d samples = %.2e  %s\n",
		       va.name, SAMPLES, err, ok ? "ok" : "WRONG");
		usable[v] = 1;
	}

	/* rounds */
	const int entries = NV + found;
	std::vector<std::vector<float>> t(entries);
	cudaEvent_t e0, e1;
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	for (int r = 0; r < rounds + 1; r++) {
		for (int e = 0; e < entries; e++) {
			if (e < NV && !usable[e])
				continue;
			CHECK(cudaMemsetAsync(flush_buf, r & 0xff, flush_bytes));
			if (e < NV) {
				CHECK(cudaMemsetAsync(out, 0, (size_t)M * N * 4));
				CHECK(cudaEventRecord(e0));
				CHECK(gq_wg_launch(&ps[e], &maps[e], 0));
			} else {
				CHECK(cudaEventRecord(e0));
				lt_run(e - NV, ref);
			}
			CHECK(cudaGetLastError());
			CHECK(cudaEventRecord(e1));
			CHECK(cudaEventSynchronize(e1));
			float ms = 0;
			CHECK(cudaEventElapsedTime(&ms, e0, e1));
			if (r > 0) /* round 0 warms up */
				t[e].push_back(1000.f * ms);
		}
	}
	auto median = [](std::vector<float> v) {
		std::sort(v.begin(), v.end());
		return v.empty() ? -1.f : v[v.size() / 2];
	};
	float best_lt = -1;
	int best_a = -1;
	for (int a = 0; a < found; a++) {
		const float m = median(t[NV + a]);
		if (best_lt < 0 || m < best_lt)
			best_lt = m, best_a = a;
	}
	printf("wgrad %lldx%lld T=%lld fp32 (%s): cuBLASLt best of %d: algo %d %.1f us; all:",
	       (long long)N, (long long)M, (long long)T, sh.program, found, best_a, best_lt);
	for (int a = 0; a < found; a++)
		printf(" %.1f", median(t[NV + a]));
	printf("\n");
	for (int v = 0; v < NV; v++) {
		if (!usable[v])
			continue;
		const float m = median(t[v]);
		printf("  %-42s %7.1f us  %.3f x cuBLASLt\n", variants[v].name, m, m / best_lt);
	}
	/* when each CTA started and ended, in one launch after a flush */
	{
		const int64_t ctas = (int64_t)((M + sh.bm - 1) / sh.bm) * (N / sh.bn) * sh.splits;
		unsigned long long *d_tr = NULL;
		CHECK(cudaMalloc(&d_tr, (size_t)ctas * 3 * sizeof(unsigned long long)));
		std::vector<unsigned long long> tr((size_t)ctas * 3);
		for (int v = 0; v < NV; v++) {
			if (!usable[v])
				continue;
			CHECK(cudaMemset(d_tr, 0, (size_t)ctas * 3 * sizeof(unsigned long long)));
			CHECK(cudaMemsetAsync(flush_buf, 7, flush_bytes));
			CHECK(cudaMemsetAsync(out, 0, (size_t)M * N * 4));
			gq_wg_params q = ps[v];
			q.trace = d_tr;
			CHECK(gq_wg_launch(&q, &maps[v], 0));
			CHECK(cudaDeviceSynchronize());
			CHECK(cudaMemcpy(tr.data(), d_tr, tr.size() * sizeof(tr[0]), cudaMemcpyDeviceToHost));
			unsigned long long t0 = ~0ull;
			for (int64_t c = 0; c < ctas; c++)
				t0 = std::min(t0, tr[3 * c]);
			std::vector<double> st, en;
			for (int64_t c = 0; c < ctas; c++) {
				st.push_back((tr[3 * c] - t0) / 1000.0);
				en.push_back((tr[3 * c + 1] - t0) / 1000.0);
			}
			std::sort(st.begin(), st.end());
			std::sort(en.begin(), en.end());
			const size_t n = en.size();
			printf("    trace %-40s starts max %.1f us; ends min %.1f p10 %.1f p50 %.1f p90 %.1f max %.1f us\n",
			       variants[v].name, st[n - 1], en[0], en[n / 10], en[n / 2], en[n * 9 / 10], en[n - 1]);
		}
		CHECK(cudaFree(d_tr));
	}
	fflush(stdout);
	CHECK(cudaEventDestroy(e0));
	CHECK(cudaEventDestroy(e1));
	for (int v = 0; v < NV; v++) {
		if (!queues[v])
			continue;
		const int64_t tiles = (M + sh.bm - 1) / sh.bm * (N / sh.bn);
		std::vector<int32_t> q((size_t)tiles + 1);
		CHECK(cudaMemcpy(q.data(), queues[v], q.size() * 4, cudaMemcpyDeviceToHost));
		for (int32_t x : q)
			if (x != 0) {
				printf("#   %s: the queue was not left at zero (%d)\n", variants[v].name, x);
				break;
			}
		CHECK(cudaFree(queues[v]));
	}
	CHECK(cudaFree(out));
	CHECK(cudaFree(ref));
	lt_wgrad_close(&w);
}

int main(int argc, char **argv)
{
	const int64_t T = argc > 1 ? atoll(argv[1]) : 65537;
	const int rounds = argc > 2 ? atoi(argv[2]) : 21;
	if (T < 1 || rounds < 1) {
		fprintf(stderr, "usage: wgrad-variants [T [ROUNDS]]\n");
		return 2;
	}
	const diag_gpu gpu = diag_gpu_open();
	const int l2 = gpu.l2, sms = gpu.sms;
	flush_buf = gpu.flush, flush_bytes = gpu.flush_bytes;
	uint16_t *x = NULL, *g = NULL;
	CHECK(cudaMalloc(&x, (size_t)T * 5120 * 2));
	CHECK(cudaMalloc(&g, (size_t)T * 128 * 2));
	fill<<<1024, 256>>>(x, T * 5120, 1);
	CHECK(cudaGetLastError());
	fill<<<1024, 256>>>(g, T * 128, 2);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	cublasLtHandle_t lt;
	LT(cublasLtCreate(&lt));
	printf("# T %lld, %d SMs, L2 %d bytes, %d rounds\n", (long long)T, sms, l2, rounds);
	const shape shapes[] = {
	    {4096, 32, 4, 64, 128, "n128:s4"},   {4096, 48, 4, 64, 128, "n128:s4"},
	    {4096, 64, 4, 64, 128, "n128:s4"},
	    {5120, 32, 3, 64, 128, "n128:s3"},   {5120, 48, 3, 64, 128, "n128:s3"},
	    {4096, 128, 4, 128, 128, "n128:s4"}, {5120, 128, 3, 128, 128, "n128:s3"},
	};
	for (const shape &sh : shapes) {
		/* g is [T, M]: a tensor of M columns over the same buffer */
		run_shape(sh, x, g, T, rounds, lt);
	}
	LT(cublasLtDestroy(lt));
	return 0;
}
