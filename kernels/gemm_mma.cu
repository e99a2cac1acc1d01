/* gemm_mma.cu: kernel lookup and launches of the GEMM kernels, and the kernels that finish a split
 * GEMM (see gemm_mma.h).
 *
 * Kernels:
 *   gq_mma_reduce_kernel          out = Σ_s ws[s] in s order (FP32 → BF16 or FP32), float4 wide;
 *                                 with one slice it is the FP32 → BF16 conversion of gemmq:split.
 *   gq_mma_streamk_fixup_kernel   a row of CTAs per stream-K boundary g = 1..G−1 (and group,
 *                                 sk_groups), each with a run of a tile's elements: when boundary
 *                                 g is the first to fall strictly inside its tile, sum that
 *                                 tile's slots in K order and store the tile.
 * The GEMM kernels themselves are compiled in gemm_mma_{fwd,dgrad,wgrad}.cu.
 */
#include "gemm_mma.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "gemm_mma_kernel.cuh"

#define GQ_MMA_FINISH_THREADS 256

int gq_mma_kernel_find(gq_mma_layout layout, int bm, int bn, gq_mma_kernel *kernel)
{
	switch (layout) {
	case GQ_MMA_LAYOUT_FWD:
		return gq_mma_find_fwd(bm, bn, kernel);
	case GQ_MMA_LAYOUT_DGRAD:
		return gq_mma_find_dgrad(bm, bn, kernel);
	case GQ_MMA_LAYOUT_WGRAD:
		return gq_mma_find_wgrad(bm, bn, kernel);
	default:
		return -1;
	}
}

cudaError_t gq_mma_kernel_setup(const gq_mma_kernel *kernel, int *ctas_per_sm)
{
	cudaError_t e = cudaFuncSetAttribute(
	    kernel->func, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kernel->smem_bytes);
	if (e != cudaSuccess)
		return e;
	return cudaOccupancyMaxActiveBlocksPerMultiprocessor(ctas_per_sm, kernel->func,
	                                                     kernel->threads, kernel->smem_bytes);
}

cudaError_t gq_mma_gemm_launch(const gq_mma_kernel *kernel, const gq_mma_params *p, int gx, int gy,
                               int gz, cudaStream_t stream)
{
	gq_mma_params params = *p;
	void *args[] = {&params};
	cudaError_t e =
	    cudaLaunchKernel(kernel->func, dim3((unsigned)gx, (unsigned)gy, (unsigned)gz),
	                     dim3((unsigned)kernel->threads), args, kernel->smem_bytes, stream);
	if (e != cudaSuccess)
		return e;
	return cudaGetLastError();
}

/* Store four consecutive outputs at out + at (at a multiple of 4): FP32, or BF16 rounded to
 * nearest even. */
__device__ __forceinline__ void gq_mma_store4(void *out, int out_fp32, int64_t at, float4 v)
{
	if (out_fp32) {
		*reinterpret_cast<float4 *>(static_cast<float *>(out) + at) = v;
		return;
	}
	__nv_bfloat162 lo = __floats2bfloat162_rn(v.x, v.y), hi = __floats2bfloat162_rn(v.z, v.w);
	uint2 bits;
	bits.x = *reinterpret_cast<uint32_t *>(&lo);
	bits.y = *reinterpret_cast<uint32_t *>(&hi);
	*reinterpret_cast<uint2 *>(static_cast<__nv_bfloat16 *>(out) + at) = bits;
}

__device__ __forceinline__ float4 gq_mma_add4(float4 a, float4 b)
{
	return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

/* out[i] = ((ws[0][i] + ws[1][i]) + ws[2][i]) + … for i < count (a multiple of 4), grid-stride.
 * Launched as a programmatic dependent, it waits for the grid before it (and that grid's writes)
 * before it reads; launched the ordinary way, that grid has already finished and the wait returns
 * at once. */
__global__ void gq_mma_reduce_kernel(const float *ws, int splits, int64_t count, void *out,
                                     int out_fp32)
{
	asm volatile("griddepcontrol.wait;" ::: "memory");
	const int64_t quads = count / 4;
	for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < quads;
	     q += (int64_t)gridDim.x * blockDim.x) {
		float4 acc = reinterpret_cast<const float4 *>(ws)[q];
		for (int s = 1; s < splits; s++)
			acc = gq_mma_add4(
			    acc, reinterpret_cast<const float4 *>(ws + (int64_t)s * count)[q]);
		gq_mma_store4(out, out_fp32, 4 * q, acc);
	}
}

cudaError_t gq_mma_reduce_launch(const float *ws, int splits, int64_t count, void *out,
                                 int out_fp32, int programmatic, cudaStream_t stream)
{
	const int64_t quads = count / 4;
	int64_t blocks = (quads + GQ_MMA_FINISH_THREADS - 1) / GQ_MMA_FINISH_THREADS;
	if (blocks > 4096)
		blocks = 4096;
	if (blocks < 1)
		blocks = 1;
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3((unsigned)blocks);
	cfg.blockDim = dim3(GQ_MMA_FINISH_THREADS);
	cfg.stream = stream;
	cudaLaunchAttribute attr;
	attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
	attr.val.programmaticStreamSerializationAllowed = 1;
	cfg.attrs = &attr;
	cfg.numAttrs = programmatic ? 1 : 0;
	const cudaError_t e =
	    cudaLaunchKernelEx(&cfg, gq_mma_reduce_kernel, ws, splits, count, out, out_fp32);
	return e != cudaSuccess ? e : cudaGetLastError();
}

/* Stream-K fixup for boundary g = blockIdx.x + 1: when gq_mma_sk_fixup_tile assigns a tile to it,
 * sum the tile's parts in K order and store the tile; block y of the grid takes the y-th run of
 * 4·GQ_MMA_FINISH_THREADS elements of the tile, so that every element is one thread's, whose
 * loads of the parts are independent of each other (the parts are counted first) and only the
 * adds keep the K order. */
__global__ void gq_mma_streamk_fixup_kernel(const gq_mma_params p, int bm, int bn)
{
	const int64_t g = (int64_t)blockIdx.x + 1;
	int64_t tile, first_slot, tm, tn;
	if (!gq_mma_sk_fixup_tile(&p, g, &tile, &first_slot))
		return;
	gq_mma_tile_coords(&p, tile, &tm, &tn);
	tm += blockIdx.z; /* the group's M tile (sk_groups > 1; else 0) */
	const int64_t elems = (int64_t)bm * bn, t1 = (tile + 1) * p.k_tiles;
	int64_t last = g; /* the parts after the first: slots 2c, c = g … last − 1 */
	while (last < p.sk_ctas && gq_mma_sk_begin(&p, last) < t1)
		last++;
	const float *slots = p.ws + gq_mma_sk_group_slot0(&p, blockIdx.z) * elems;
	const float *first = slots + first_slot * elems;
	for (int64_t e = ((int64_t)blockIdx.y * blockDim.x + threadIdx.x) * 4; e < elems;
	     e += (int64_t)gridDim.y * blockDim.x * 4) {
		const int64_t row = tm * bm + e / bn, col = tn * bn + e % bn;
		if (row >= p.m || col >= p.n)
			continue;
		float4 acc = *reinterpret_cast<const float4 *>(first + e);
#pragma unroll 4
		for (int64_t c = g; c < last; c++)
			acc = gq_mma_add4(
			    acc, *reinterpret_cast<const float4 *>(slots + 2 * c * elems + e));
		gq_mma_store4(p.out, p.out_fp32, row * p.n + col, acc);
	}
}

cudaError_t gq_mma_streamk_fixup_launch(const gq_mma_params *p, int bm, int bn, cudaStream_t stream)
{
	if (p->sk_ctas < 2)
		return cudaSuccess;
	const int runs = (bm * bn + 4 * GQ_MMA_FINISH_THREADS - 1) / (4 * GQ_MMA_FINISH_THREADS);
	gq_mma_streamk_fixup_kernel<<<dim3((unsigned)(p->sk_ctas - 1), (unsigned)runs,
	                                   (unsigned)gq_mma_sk_groups(p)),
	                              GQ_MMA_FINISH_THREADS, 0, stream>>>(*p, bm, bn);
	return cudaGetLastError();
}
