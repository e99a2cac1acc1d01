/* gemm_batched.cu: gemmq:det's batched and FP32 × BF16 kernel (gemm_batched.h). */
#include "gemm_batched.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#define BT GQ_BATCHED_TILE /* output tile BT × BT, K tile BT */
#define TY 8               /* thread rows: each thread keeps BT / TY outputs */

/* Element (row r, column c) of a row-major operand at base with leading dimension ld, as FP32:
 * an FP32 value, or BF16 bits widened exactly. */
static __device__ __forceinline__ float load(const void *base, int fp32, int64_t r, int64_t c,
                                             int64_t ld)
{
	const int64_t at = r * ld + c;
	if (fp32)
		return ((const float *)base)[at];
	return __uint_as_float((uint32_t)((const uint16_t *)base)[at] << 16);
}

static __global__ void __launch_bounds__(BT *TY) gq_batched_kernel(gq_batched_params p)
{
	__shared__ float as[BT][BT + 1]; /* [i][k] */
	__shared__ float bs[BT][BT + 1]; /* [k][j] */
	const int tx = threadIdx.x, ty = threadIdx.y;
	const int64_t h = blockIdx.z;
	const int64_t i0 = (int64_t)blockIdx.y * BT, j0 = (int64_t)blockIdx.x * BT;
	const char *a = (const char *)p.a + h * p.stride_a * (p.a_fp32 ? 4 : 2);
	const uint16_t *b = (const uint16_t *)p.b + h * p.stride_b;
	float acc[BT / TY];
	for (int q = 0; q < BT / TY; q++)
		acc[q] = 0.0f;
	for (int64_t k0 = 0; k0 < p.k; k0 += BT) {
		for (int r = ty; r < BT; r += TY) {
			const int64_t i = i0 + r, k = k0 + tx;
			as[r][tx] = i < p.m && k < p.k
			                ? (p.a_trans ? load(a, p.a_fp32, k, i, p.lda)
			                             : load(a, p.a_fp32, i, k, p.lda))
			                : 0.0f;
			const int64_t kb = k0 + r, j = j0 + tx;
			bs[r][tx] = kb < p.k && j < p.n ? (p.b_trans ? load(b, 0, j, kb, p.ldb)
			                                             : load(b, 0, kb, j, p.ldb))
			                                : 0.0f;
		}
		__syncthreads();
		const int kmax = p.k - k0 < BT ? (int)(p.k - k0) : BT;
		for (int kk = 0; kk < kmax; kk++) {
			const float bv = bs[kk][tx];
			for (int q = 0; q < BT / TY; q++)
				acc[q] = fmaf(as[ty + TY * q][kk], bv, acc[q]);
		}
		__syncthreads();
	}
	const int64_t j = j0 + tx;
	if (j >= p.n)
		return;
	for (int q = 0; q < BT / TY; q++) {
		const int64_t i = i0 + ty + TY * q;
		if (i >= p.m)
			continue;
		const int64_t at = h * p.stride_c + i * p.ldc + j;
		if (p.out_fp32)
			((float *)p.out)[at] = acc[q];
		else
			((__nv_bfloat16 *)p.out)[at] = __float2bfloat16_rn(acc[q]);
	}
}

extern "C" cudaError_t gq_batched_launch(const gq_batched_params *p, cudaStream_t stream)
{
	const dim3 grid((unsigned)((p->n + BT - 1) / BT), (unsigned)((p->m + BT - 1) / BT),
	                (unsigned)p->batch);
	gq_batched_kernel<<<grid, dim3(BT, TY), 0, stream>>>(*p);
	return cudaGetLastError();
}
