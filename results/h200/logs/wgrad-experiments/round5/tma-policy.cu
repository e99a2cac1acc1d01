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
 *
 * The stream kernel, the timing and the GEMMs are ../stream.h's. The runs of
 * tma-policy-65537.txt and tma-policy-16384.txt were made with this file as of commit 7156d49,
 * which had its own copy of them (the same copies, the box shape fixed at compile time, and the
 * cuBLASLt line padded differently).
 */
#include "../../../../../kernels/gemm_wgmma.cu"
#include "../diag.h"
#include "../stream.h"

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
	CHECK(cudaFuncSetAttribute(tma_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	stream_params p = {64, 2, stages, (int32_t)per, policy, kblocks};
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
	const float us = median_us([&] { CHECK(cudaLaunchKernelEx(&cfg, tma_stream, map, p)); });
	printf("x   N %5lld  stages %2d  %-12s  promo %s  %s  cluster %d  CTAs %4u  %7.1f us  %.2f TB/s\n",
	       (long long)N, stages, stream_policy_name[policy],
	       promo == CU_TENSOR_MAP_L2_PROMOTION_L2_256B ? "256B" : "none",
	       one_per_sm ? "1/SM" : "any ", cluster, grid.x * grid.y, us,
	       (double)T * N * 2 / us / 1e6);
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
			for (int policy : {STREAM_EVICT_FIRST, STREAM_EVICT_NORMAL, STREAM_NO_HINT, STREAM_EVICT_LAST})
				for (int stages : {4, 6, 10})
					run(x, T, N, splits, stages, policy, 1, 1, p256);
			for (int policy : {STREAM_EVICT_FIRST, STREAM_NO_HINT}) {
				run(x, T, N, splits, 4, policy, 0, 1, p256);
				run(x, T, N, splits, 10, policy, 1, 2, p256);
				run(x, T, N, splits, 10, policy, 1, 1, CU_TENSOR_MAP_L2_PROMOTION_NONE);
			}
		}
	return 0;
}
