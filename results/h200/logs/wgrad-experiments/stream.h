/* stream.h: what tma-stream.cu, round5/tma-policy.cu, round12/ and round13/ share (include it
 * after kernels/gemm_wgmma.cu and diag.h): a kernel that streams x, a [T, N] BF16 tensor, with
 * the wgrad kernel's tensor copies and nothing else, and one of plain 16-byte loads; operands
 * filled with hashed values and results compared; the arguments [T [N [LAUNCHES]]]; the median
 * of CUDA-event timings after the harness's L2 flush; cuBLASLt's fastest wgrad algorithm; a split
 * program planned as kernels.c plans it; and the two whole wgrad GEMMs next to it (ours and
 * cuBLASLt's).
 */
#pragma once

#include <algorithm>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

/* The L2 policy of x's copies: the wgrad kernel's evict-first, evict-normal, no cache hint at
 * all (cuBLASLt's kernels), evict-last. */
enum { STREAM_EVICT_FIRST, STREAM_EVICT_NORMAL, STREAM_NO_HINT, STREAM_EVICT_LAST };
static const char *const stream_policy_name[] = {"evict-first", "evict-normal", "no hint",
                                                 "evict-last"};

/* An arrival on a shared-memory barrier (kernels/gemm_wgmma.cu had this as gq_wg_bar_arrive
 * until 8886c2c, whose consumers no longer call it). */
__device__ __forceinline__ void stream_bar_arrive(uint32_t bar)
{
	asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

struct stream_params {
	int32_t rows, boxes, stages, kb_per_split, policy;
	int64_t kblocks;
};

/* Each CTA owns `boxes` × 64 columns of x and one of the splits' contiguous ranges of rows,
 * and streams it in K-blocks of `rows` rows through a ring of `stages` stages, as the wgrad
 * kernel's producer warp does (128-byte swizzle, 64-column boxes); a consumer warp only waits
 * for each stage and releases it: no multiply, no g, no output. 64 threads. */
__global__ void __launch_bounds__(64)
    tma_stream(const __grid_constant__ CUtensorMap map, const stream_params p)
{
	extern __shared__ unsigned char raw[];
	__shared__ __align__(8) uint64_t full[32], empty[32];
	unsigned char *smem = reinterpret_cast<unsigned char *>(
	    (reinterpret_cast<uintptr_t>(raw) + 1023) & ~(uintptr_t)1023);
	const int box_bytes = p.rows * 128, stage_bytes = p.boxes * box_bytes;
	const int64_t kb0 = (int64_t)blockIdx.y * p.kb_per_split;
	int64_t nkb = p.kblocks - kb0;
	if (nkb > p.kb_per_split)
		nkb = p.kb_per_split;
	const int tid = threadIdx.x;
	if (tid == 0) {
		for (int s = 0; s < p.stages; s++) {
			gq_wg_bar_init(&full[s], 1);
			gq_wg_bar_init(&empty[s], 1);
		}
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	}
	__syncthreads();
	if (tid == 0) {
		uint64_t policy = gq_wg_policy_evict_first();
		if (p.policy == STREAM_EVICT_NORMAL)
			asm volatile("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;"
			             : "=l"(policy));
		else if (p.policy == STREAM_EVICT_LAST)
			policy = gq_wg_policy_evict_last();
		for (int64_t i = 0; i < nkb; i++) {
			const int s = (int)(i % p.stages);
			const int64_t r = i / p.stages;
			if (r >= 1)
				gq_wg_bar_wait(gq_wg_smem_addr(&empty[s]), (uint32_t)((r - 1) & 1));
			gq_wg_bar_expect_tx(gq_wg_smem_addr(&full[s]), stage_bytes);
			for (int c = 0; c < p.boxes; c++) {
				void *dst = smem + (size_t)s * stage_bytes + c * box_bytes;
				const int32_t col = blockIdx.x * p.boxes * 64 + 64 * c,
				              row = (int32_t)((kb0 + i) * p.rows);
				if (p.policy == STREAM_NO_HINT)
					gq_wg_tma_load_nohint(gq_wg_smem_addr(dst), &map, col, row,
					                      gq_wg_smem_addr(&full[s]));
				else
					gq_wg_tma_load(gq_wg_smem_addr(dst), &map, col, row,
					               gq_wg_smem_addr(&full[s]), policy);
			}
		}
	} else if (tid == 32) {
		for (int64_t i = 0; i < nkb; i++) {
			const int s = (int)(i % p.stages);
			gq_wg_bar_wait(gq_wg_smem_addr(&full[s]), (uint32_t)((i / p.stages) & 1));
			stream_bar_arrive(gq_wg_smem_addr(&empty[s]));
		}
	}
}

/* The reference: every thread reads 16-byte words, grid-stride. */
__global__ void ldg_stream(const int4 *x, int64_t words, int *sink)
{
	int acc = 0;
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < words;
	     i += (int64_t)gridDim.x * blockDim.x) {
		const int4 v = __ldcs(x + i);
		acc ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	if (acc == 0x12345678)
		*sink = acc;
}

/* v[i] = BF16 of a hashed value in [-1, 1) (seed picks the values). */
__global__ void stream_fill(uint16_t *v, int64_t n, uint32_t seed)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x) {
		uint32_t h = (uint32_t)i * 2654435761u ^ seed;
		h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
		const float f = ((int)(h & 1023) - 512) / 512.f;
		v[i] = __bfloat16_as_ushort(__float2bfloat16(f));
	}
}

/* The operands of the d_out ≤ 128 diagnostics (drift.cu, clock.cu, energy.cu) at T tokens: x
 * [T, 5120] and g [T, 128] BF16 and out [128, 5120] FP32. wgrad_fill gives x and g
 * stream_fill's values (seeds 1 and 2), on the default stream; wgrad_alloc allocates them and,
 * with fill, fills them so. */
static void wgrad_fill(uint16_t *x, uint16_t *g, int64_t T)
{
	stream_fill<<<1024, 256>>>(x, T * 5120, 1);
	stream_fill<<<1024, 256>>>(g, T * 128, 2);
	CHECK(cudaGetLastError());
}

static void wgrad_alloc(int64_t T, uint16_t **x, uint16_t **g, float **out, bool fill)
{
	CHECK(cudaMalloc(x, (size_t)T * 5120 * 2));
	CHECK(cudaMalloc(g, (size_t)T * 128 * 2));
	CHECK(cudaMalloc(out, (size_t)128 * 5120 * 4));
	if (fill)
		wgrad_fill(*x, *g, T);
}

/* The q-quantile of v (0 the smallest, 1 the largest; 0 for none), the nearest rank. */
static double pct(std::vector<double> v, double q)
{
	if (v.empty())
		return 0;
	std::sort(v.begin(), v.end());
	return v[(size_t)(q * (v.size() - 1) + 0.5)];
}

/* max |a − b| / max |b|. */
static double max_rel(const std::vector<float> &a, const std::vector<float> &b)
{
	double d = 0, m = 0;
	for (size_t i = 0; i < a.size(); i++) {
		d = std::max(d, (double)fabsf(a[i] - b[i]));
		m = std::max(m, (double)fabsf(b[i]));
	}
	return d / m;
}

static void *flush_buf;
static size_t flush_bytes;
static int launches = 10;

/* The arguments [T [N [LAUNCHES]]] of a diagnostic called name: T (default 65537), only this N
 * (default 0: every N), and `launches`; exits with status 2 and a usage line when one is out of
 * range. */
static void stream_args(int argc, char **argv, const char *name, int64_t *T, int64_t *only_n)
{
	*T = argc > 1 ? atoll(argv[1]) : 65537;
	*only_n = argc > 2 ? atoll(argv[2]) : 0;
	if (argc > 3)
		launches = atoi(argv[3]);
	if (*T < 1 || *only_n < 0 || launches < 1) {
		fprintf(stderr, "usage: %s [T [N [LAUNCHES]]]\n", name);
		exit(2);
	}
}

/* stream_args, then the current device (diag_gpu_open) with its flush buffer as flush_buf. */
static diag_gpu stream_open(int argc, char **argv, const char *name, int64_t *T, int64_t *only_n)
{
	stream_args(argc, argv, name, T, only_n);
	const diag_gpu gpu = diag_gpu_open();
	flush_buf = gpu.flush, flush_bytes = gpu.flush_bytes;
	return gpu;
}

/* The median of `launches` launches (the first a warm-up, unless there is only one), each after
 * a memset of flush_buf. */
template <typename F> static float median_us(F launch)
{
	cudaEvent_t a, b;
	CHECK(cudaEventCreate(&a));
	CHECK(cudaEventCreate(&b));
	std::vector<float> t;
	for (int i = 0; i < launches; i++) {
		CHECK(cudaMemsetAsync(flush_buf, i, flush_bytes));
		CHECK(cudaEventRecord(a));
		launch();
		CHECK(cudaGetLastError());
		CHECK(cudaEventRecord(b));
		CHECK(cudaEventSynchronize(b));
		float ms = 0;
		CHECK(cudaEventElapsedTime(&ms, a, b));
		if (i > 0 || launches == 1) /* the first is a warm-up */
			t.push_back(ms * 1000.f);
	}
	std::sort(t.begin(), t.end());
	CHECK(cudaEventDestroy(a));
	CHECK(cudaEventDestroy(b));
	return t[t.size() / 2];
}

/* cuBLASLt's wgrad out[M, N] = gᵀ·x as the harness calls it: its algorithm 0's result into ref
 * (M·N floats), then the fastest of its (up to) 8 heuristic algorithms by median_us: the time,
 * with its index in *algo and their number in *found. */
static float lt_fastest(cublasLtHandle_t lt, int64_t M, int64_t N, int64_t T, const void *x,
                        const void *g, float *out, std::vector<float> *ref, int *algo, int *found)
{
	lt_wgrad w;
	lt_wgrad_open(lt, &w, M, N, T, 8);
	lt_wgrad_run(lt, &w, 0, x, g, out);
	CHECK(cudaDeviceSynchronize());
	ref->resize((size_t)(M * N));
	CHECK(
	    cudaMemcpy(ref->data(), out, (size_t)(M * N) * sizeof(float), cudaMemcpyDeviceToHost));
	float best = 1e30f;
	*algo = 0, *found = w.found;
	for (int a = 0; a < w.found; a++) {
		const float us = median_us([&] { lt_wgrad_run(lt, &w, a, x, g, out); });
		if (us < best)
			best = us, *algo = a;
	}
	lt_wgrad_close(&w);
	return best;
}

/* The parameters and tensor maps of the split program with a bm×bn tile and `splits` splits for
 * out[M, N] (FP32, zeroed before each launch) = gᵀ·x, g [T, M], x [T, N], as kernels.c plans it
 * (gq_wg_share where the grid fills the SMs, gq_wg_cluster_for, x streamed where it should be).
 * Exits when the driver refuses the maps. */
static void split_plan(gq_wg_params *wp, gq_wg_maps *maps, const void *g, const void *x, float *out,
                       int64_t M, int64_t N, int64_t T, int bm, int bn, int splits, int l2, int sms)
{
	memset(wp, 0, sizeof(*wp));
	wp->a = static_cast<const uint16_t *>(g), wp->b = static_cast<const uint16_t *>(x);
	wp->out = out, wp->ws = out;
	wp->m = M, wp->n = N, wp->k = T, wp->bm = bm, wp->bn = bn;
	const int64_t kblocks = (T + GQ_WG_BK - 1) / GQ_WG_BK;
	wp->splits = splits;
	wp->kb_per_split = (int32_t)((kblocks + splits - 1) / splits);
	wp->mode = GQ_MMA_ATOMIC, wp->out_fp32 = 1;
	const int64_t ctas = ((M + bm - 1) / bm) * ((N + bn - 1) / bn) * splits;
	wp->b_stream = gq_wg_stream_b(M, N, T, l2);
	wp->share = gq_wg_share(M, N, T, bm, bn, l2);
	if (!gq_wg_share_fills(ctas, sms))
		wp->share = GQ_WG_SHARE_NONE;
	int threads = 0, per_sm = 0;
	size_t smem = 0;
	CHECK(gq_wg_setup(bm, bn, &threads, &smem, &per_sm));
	CHECK(gq_wg_cluster_for(wp));
	if (wp->share != GQ_WG_SHARE_NONE)
		wp->b_stream = 1;
	const char *why = "";
	if (gq_wg_encode(wp, maps, &why) != cudaSuccess) {
		fprintf(stderr, "%s\n", why);
		exit(1);
	}
}

/* out[32, N] (FP32) = gᵀ·x, g [T, 32], x [T, N]: ours (gemmq:split:n128 with `splits` splits: a
 * memset of the output, then the 64x128 kernel adding into it, as kernels.c launches it) and
 * cuBLASLt's first heuristic algorithm (as harness/programs_cublas.c calls it). */
static void gemms(const void *x, const void *g, float *out, int64_t T, int64_t N, int splits)
{
	const int64_t M = 32;
	gq_wg_params p;
	memset(&p, 0, sizeof(p));
	p.a = static_cast<const uint16_t *>(g);
	p.b = static_cast<const uint16_t *>(x);
	p.out = out;
	p.ws = out;
	p.m = M, p.n = N, p.k = T;
	p.bm = 64, p.bn = 128;
	const int64_t kblocks = (T + GQ_WG_BK - 1) / GQ_WG_BK;
	p.splits = splits;
	p.kb_per_split = (int32_t)((kblocks + splits - 1) / splits);
	p.mode = GQ_MMA_ATOMIC;
	p.out_fp32 = 1;
	int threads = 0, per_sm = 0;
	size_t smem = 0;
	CHECK(gq_wg_setup(64, 128, &threads, &smem, &per_sm));
	static gq_wg_maps maps;
	const char *why = "";
	if (gq_wg_encode(&p, &maps, &why) != cudaSuccess) {
		fprintf(stderr, "%s\n", why);
		exit(1);
	}
	float us = median_us([&] {
		CHECK(cudaMemsetAsync(out, 0, (size_t)M * N * sizeof(float)));
		CHECK(gq_wg_launch(&p, &maps, 0));
	});
	printf("gemm N %5lld  gemmq:split:n128:s%d (memset + kernel)  %7.1f us\n", (long long)N,
	       splits, us);

	cublasLtHandle_t lt;
	LT(cublasLtCreate(&lt));
	lt_wgrad w;
	lt_wgrad_open(lt, &w, M, N, T, 1);
	us = median_us([&] { lt_wgrad_run(lt, &w, 0, x, g, out); });
	printf("gemm N %5lld  cuBLASLt heuristic algorithm 0              %7.1f us\n", (long long)N,
	       us);
	lt_wgrad_close(&w);
	LT(cublasLtDestroy(lt));
}
