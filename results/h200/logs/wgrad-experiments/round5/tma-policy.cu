/* tma-policy.cu: does x stream faster from HBM with the L2 policy cuBLASLt's kernels use? Their
 * SASS (ncu-sass.sh) shows tensor copies with no cache hint at all, 10 stages of 64 rows at one
 * CTA per SM, in clusters of 2; ours copy x evict-first through 4 stages. This streams x alone
 * (../tma-stream.cu's kernel: a producer thread, a consumer thread that only releases the
 * stages) with the policy, the ring's depth, one CTA per SM and clusters of 2 as parameters,
 * next to the whole GEMMs (ours n128:s4 with its memset, cuBLASLt's algorithm 0). Each figure is
 * the median of 9 launches, each after a 2 × L2 memset, timed with CUDA events.
 *
 *   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Ikernels -Iharness \
 *        -o build-exp/tma-policy results/h200/logs/wgrad-experiments/round5/tma-policy.cu -lcublasLt
 *   build-exp/tma-policy [T]   (default 65537; N = 4096 with 4 splits and 5120 with 3)
 */
#include "../../../../../kernels/gemm_wgmma.cu"
#include "../diag.h"

#include <algorithm>
#include <cublasLt.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

enum { POL_FIRST, POL_NORMAL, POL_NONE, POL_LAST };
static const char *pol_name[] = {"evict-first", "evict-normal", "no hint", "evict-last"};

struct stream_params {
	int32_t stages, kb_per_split, policy;
	int64_t kblocks;
};

__device__ __forceinline__ void tma_load_nohint(void *dst, const void *map, int32_t c0, int32_t c1,
                                                uint64_t *bar)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
	             " [%0], [%1, {%2, %3}], [%4];" ::"r"(gq_wg_smem_addr(dst)),
	             "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(gq_wg_smem_addr(bar))
	             : "memory");
}

/* Each CTA streams 128 columns (two 64-column boxes of 64 rows) of one split's rows. */
__global__ void __launch_bounds__(64) stream_x(const __grid_constant__ CUtensorMap map,
                                               const stream_params p)
{
	extern __shared__ unsigned char raw[];
	__shared__ __align__(8) uint64_t full[16], empty[16];
	unsigned char *smem =
	    reinterpret_cast<unsigned char *>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~(uintptr_t)1023);
	constexpr int box_bytes = 64 * 128, stage_bytes = 2 * box_bytes;
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
		uint64_t pol = gq_wg_policy_evict_first();
		if (p.policy == POL_NORMAL)
			asm volatile("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(pol));
		else if (p.policy == POL_LAST)
			pol = gq_wg_policy_evict_last();
		for (int64_t i = 0; i < nkb; i++) {
			const int s = (int)(i % p.stages);
			const int64_t r = i / p.stages;
			if (r >= 1)
				gq_wg_bar_wait(&empty[s], (uint32_t)((r - 1) & 1));
			gq_wg_bar_expect_tx(&full[s], stage_bytes);
			for (int c = 0; c < 2; c++) {
				void *dst = smem + (size_t)s * stage_bytes + c * box_bytes;
				const int32_t col = blockIdx.x * 128 + 64 * c, row = (int32_t)((kb0 + i) * 64);
				if (p.policy == POL_NONE)
					tma_load_nohint(dst, &map, col, row, &full[s]);
				else
					gq_wg_tma_load(dst, &map, col, row, &full[s], pol);
			}
		}
	} else if (tid == 32) {
		for (int64_t i = 0; i < nkb; i++) {
			const int s = (int)(i % p.stages);
			gq_wg_bar_wait(&full[s], (uint32_t)((i / p.stages) & 1));
			gq_wg_bar_arrive(&empty[s]);
		}
	}
}

static void *flush_buf;
static size_t flush_bytes;

template <typename F> static float median_us(F launch)
{
	cudaEvent_t a, b;
	CHECK(cudaEventCreate(&a));
	CHECK(cudaEventCreate(&b));
	std::vector<float> t;
	for (int i = 0; i < 10; i++) {
		CHECK(cudaMemsetAsync(flush_buf, i, flush_bytes));
		CHECK(cudaEventRecord(a));
		launch();
		CHECK(cudaGetLastError());
		CHECK(cudaEventRecord(b));
		CHECK(cudaEventSynchronize(b));
		float ms = 0;
		CHECK(cudaEventElapsedTime(&ms, a, b));
		if (i > 0) /* the first is a warm-up */
			t.push_back(ms * 1000.f);
	}
	std::sort(t.begin(), t.end());
	CHECK(cudaEventDestroy(a));
	CHECK(cudaEventDestroy(b));
	return t[t.size() / 2];
}

static void run(const void *x, int64_t T, int64_t N, int splits, int stages, int policy,
                int one_per_sm, int cluster, CUtensorMapL2promotion promo)
{
	const int64_t kblocks = (T + 63) / 64;
	const int64_t per = (kblocks + splits - 1) / splits;
	size_t smem = (size_t)stages * 16384 + 1024;
	if (one_per_sm && smem < 120 * 1024)
		smem = 120 * 1024;
	CUtensorMap map;
	cuuint64_t dims[2] = {(cuuint64_t)N, (cuuint64_t)T};
	cuuint64_t strides[1] = {(cuuint64_t)N * 2};
	cuuint32_t box[2] = {64, 64};
	cuuint32_t elem[2] = {1, 1};
	if (gq_wg_encoder()(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void *>(x), dims,
	                    strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
	                    CU_TENSOR_MAP_SWIZZLE_128B, promo,
	                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
		fprintf(stderr, "cuTensorMapEncodeTiled refused the map\n");
		exit(1);
	}
	CHECK(cudaFuncSetAttribute(stream_x, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	stream_params p = {stages, (int32_t)per, policy, kblocks};
	const dim3 grid((unsigned)(N / 128), (unsigned)((kblocks + per - 1) / per));
	cudaLaunchConfig_t cfg = {};
	cudaLaunchAttribute attr[1];
	cfg.gridDim = grid;
	cfg.blockDim = dim3(64);
	cfg.dynamicSmemBytes = smem;
	cfg.stream = 0;
	if (cluster > 1) {
		attr[0].id = cudaLaunchAttributeClusterDimension;
		attr[0].val.clusterDim.x = cluster, attr[0].val.clusterDim.y = 1,
		attr[0].val.clusterDim.z = 1;
		cfg.attrs = attr, cfg.numAttrs = 1;
	}
	const float us = median_us([&] { CHECK(cudaLaunchKernelEx(&cfg, stream_x, map, p)); });
	printf("x   N %5lld  stages %2d  %-12s  promo %s  %s  cluster %d  CTAs %4u  %7.1f us  %.2f TB/s\n",
	       (long long)N, stages, pol_name[policy],
	       promo == CU_TENSOR_MAP_L2_PROMOTION_L2_256B ? "256B" : "none",
	       one_per_sm ? "1/SM" : "any ", cluster, grid.x * grid.y, us,
	       (double)T * N * 2 / us / 1e6);
}

/* out[32, N] (FP32) = gᵀ·x: ours (n128:s4 at 4096, n128:s3 at 5120: a memset of the output, then
 * the 64x128 kernel adding into it) and cuBLASLt's algorithm 0, as ../tma-stream.cu times them. */
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
	printf("gemm N %5lld  cuBLASLt heuristic algorithm 0        %7.1f us\n", (long long)N, us);
	lt_wgrad_close(&w);
	LT(cublasLtDestroy(lt));
}

int main(int argc, char **argv)
{
	const int64_t T = argc > 1 ? atoll(argv[1]) : 65537;
	if (T < 64) {
		fprintf(stderr, "usage: tma-policy [T ≥ 64]\n");
		return 2;
	}
	const diag_gpu gpu = diag_gpu_open();
	flush_buf = gpu.flush, flush_bytes = gpu.flush_bytes;
	void *x = NULL, *g = NULL;
	float *out = NULL;
	CHECK(cudaMalloc(&x, (size_t)T * 5120 * 2));
	CHECK(cudaMemset(x, 1, (size_t)T * 5120 * 2));
	CHECK(cudaMalloc(&g, (size_t)T * 32 * 2));
	CHECK(cudaMemset(g, 0, (size_t)T * 32 * 2));
	CHECK(cudaMalloc(&out, (size_t)32 * 5120 * sizeof(float)));
	printf("# T %lld, %d SMs, L2 %d bytes\n", (long long)T, gpu.sms, gpu.l2);
	const CUtensorMapL2promotion p256 = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
	for (int pass = 0; pass < 2; pass++)
		for (int64_t N : {4096, 5120}) {
			const int splits = N == 4096 ? 4 : 3;
			printf("# pass %d\n", pass + 1);
			gemms(x, g, out, T, N, splits);
			for (int policy : {POL_FIRST, POL_NORMAL, POL_NONE, POL_LAST})
				for (int stages : {4, 6, 10})
					run(x, T, N, splits, stages, policy, 1, 1, p256);
			for (int policy : {POL_FIRST, POL_NONE}) {
				run(x, T, N, splits, 4, policy, 0, 1, p256);
				run(x, T, N, splits, 10, policy, 1, 2, p256);
				run(x, T, N, splits, 10, policy, 1, 1, CU_TENSOR_MAP_L2_PROMOTION_NONE);
			}
		}
	return 0;
}
