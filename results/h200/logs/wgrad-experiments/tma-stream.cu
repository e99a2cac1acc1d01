/* tma-stream.cu: how fast can CTAs stream x, a [T, N] BF16 tensor, from HBM with the 2D tensor
 * copies of the wgrad kernel (kernels/gemm_wgmma.cu), and how does the rate depend on the shape
 * of the copies? A diagnostic for the gap between gemmq:split and cuBLASLt at large T
 * (../wgrad-experiments.md), not part of the build.
 *
 * Each CTA owns `boxes` × 64 columns of x and one of `splits` contiguous ranges of rows, and
 * streams it in K-blocks of `rows` rows through a ring of `stages` stages, exactly as the wgrad
 * kernel's producer warp does (128-byte swizzle, 64-column boxes, x evict-first); a consumer warp
 * only waits for each stage and releases it: no multiply, no g, no output. A plain kernel of
 * 16-byte loads gives the reference read rate. Next to them, the whole wgrad GEMM with d_out =
 * 32 and FP32 out: gemmq:split:n128:s4 as kernels.c launches it (a memset of the output, then the
 * 64x128 kernel with 4 splits adding into it) and cuBLASLt's first heuristic algorithm (as
 * harness/programs_cublas.c calls it, 32 MiB of workspace). Each figure is the median of 9
 * launches, each after a 2 × L2 memset, timed with CUDA events.
 *
 *   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Ikernels -Iharness \
 *        -o build/tma-stream results/h200/logs/wgrad-experiments/tma-stream.cu -lcublasLt
 *   build/tma-stream [T [N [LAUNCHES]]]   (defaults: T = 65537; N = 4096 and 5120; 10 launches,
 *                                          the first a warm-up; fewer to profile it with ncu)
 *
 * The stream kernels, the timing and the GEMMs are in stream.h, shared with round5/tma-policy.cu
 * since the fifth round (the tensor copies' kernel then gained the L2 policy as a parameter,
 * evict-first here as in every run of tma-stream.log) and with round12/ since the twelfth.
 */
#include "../../../../kernels/gemm_wgmma.cu"
#include "diag.h"
#include "stream.h"

#include <algorithm>
#include <cublasLt.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

static void run(const void *x, int64_t T, int64_t N, int rows, int boxes, int stages, int splits)
{
	const int64_t kblocks = (T + rows - 1) / rows;
	const int64_t per = (kblocks + splits - 1) / splits;
	const int64_t tiles = N / (boxes * 64);
	const size_t smem = (size_t)stages * boxes * rows * 128 + 1024;
	if (smem > 227 * 1024 || stages > 32)
		return;
	CUtensorMap map;
	cuuint64_t dims[2] = {(cuuint64_t)N, (cuuint64_t)T};
	cuuint64_t strides[1] = {(cuuint64_t)N * 2};
	cuuint32_t box[2] = {64, (cuuint32_t)rows};
	cuuint32_t elem[2] = {1, 1};
	if (gq_wg_encoder()(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void *>(x), dims,
	                    strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
	                    CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
	                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
		fprintf(stderr, "cuTensorMapEncodeTiled refused rows %d\n", rows);
		exit(1);
	}
	CHECK(cudaFuncSetAttribute(tma_stream, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                           (int)smem));
	int per_sm = 0;
	CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tma_stream, 64, smem));
	stream_params p = {rows, boxes, stages, (int32_t)per, STREAM_EVICT_FIRST, kblocks};
	const dim3 grid((unsigned)tiles, (unsigned)((kblocks + per - 1) / per));
	const float us = median_us([&] { tma_stream<<<grid, 64, smem>>>(map, p); });
	printf("tma  N %5lld  rows %3d  cols %3d  stages %2d  splits %d  CTAs %4u (%d/SM)  in flight %3zu KiB/CTA  %7.1f us  %.2f TB/s\n",
	       (long long)N, rows, boxes * 64, stages, splits, grid.x * grid.y, per_sm,
	       (size_t)stages * boxes * rows * 128 / 1024, us, (double)T * N * 2 / us / 1e6);
}

int main(int argc, char **argv)
{
	int64_t T = 0, only_n = 0;
	stream_args(argc, argv, "tma-stream", &T, &only_n);
	const diag_gpu gpu = diag_gpu_open();
	const int l2 = gpu.l2, sms = gpu.sms;
	flush_buf = gpu.flush, flush_bytes = gpu.flush_bytes;
	void *x = NULL;
	int *sink = NULL;
	CHECK(cudaMalloc(&x, (size_t)T * 5120 * 2));
	CHECK(cudaMemset(x, 1, (size_t)T * 5120 * 2));
	CHECK(cudaMalloc(&sink, sizeof(int)));
	void *g = NULL;
	float *out = NULL;
	CHECK(cudaMalloc(&g, (size_t)T * 32 * 2));
	CHECK(cudaMemset(g, 0, (size_t)T * 32 * 2));
	CHECK(cudaMalloc(&out, (size_t)32 * 5120 * sizeof(float)));
	printf("# T %lld, %d SMs, L2 %d bytes\n", (long long)T, sms, l2);
	for (int64_t N : {4096, 5120}) {
		if (only_n && N != only_n)
			continue;
		gemms(x, g, out, T, N, 4);
		const int64_t words = T * N * 2 / 16;
		for (int blocks : {sms * 2, sms * 4, sms * 8}) {
			const float us = median_us([&] {
				ldg_stream<<<blocks, 512>>>(static_cast<const int4 *>(x), words, sink);
			});
			printf("ldg  N %5lld  %d blocks of 512  %7.1f us  %.2f TB/s\n", (long long)N, blocks,
			       us, (double)T * N * 2 / us / 1e6);
		}
		const int splits = N == 4096 ? 4 : 3; /* gemmq:split:n128:s4 (4096), :s3 (5120) */
		for (int stages : {2, 3, 4, 5, 6, 8, 10, 12})
			run(x, T, N, 64, 2, stages, splits); /* the wgrad kernel's 64x128 */
		for (int stages : {4, 8, 16})
			run(x, T, N, 32, 2, stages, splits);
		for (int stages : {2, 3, 4})
			run(x, T, N, 128, 2, stages, splits);
		for (int stages : {2, 3, 4, 5})
			run(x, T, N, 64, 4, stages, 2 * splits); /* 256 columns, as many CTAs */
		for (int stages : {4, 8})
			run(x, T, N, 64, 1, stages, splits / 2 > 0 ? splits / 2 : 1); /* 64 columns */
		for (int stages : {2, 4})
			run(x, T, N, 64, 2, stages, 2 * splits); /* twice the CTAs */
	}
	return 0;
}
