/* gemm_batched.h: gemmq:det's kernel for the problems the tensor-core kernels do not take: a
 * batch of GEMMs on strided views (the per-head projections, reference/problem.h) and an FP32 A
 * times a BF16 B (the router backward with an FP32 g).
 *
 *   gq_batched_kernel   grid (⌈N/32⌉, ⌈M/32⌉, batch), 32 × 8 threads: each block stages 32 × 32
 *                       tiles of A and B through shared memory as FP32 (BF16 widened exactly) and
 *                       each thread keeps four outputs, out[i,j] = fma(a[i,k], b[k,j], acc) for
 *                       k = 0, 1, …, K−1 in that order, one FP32 sum per element, rounded once
 *                       to the out dtype (BF16 to nearest even).
 * One thread computes each element in a fixed order, with no atomics and no split: the bits are
 * the same on every rerun, stream and process, and do not depend on M or the batch (the kernel
 * is batch invariant). Speed is not its point.
 */
#ifndef GQ_GEMM_BATCHED_H
#define GQ_GEMM_BATCHED_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One launch: the geometry of gemmq_program.h (row-major, leading dimensions and batch strides
 * in elements) and the operands. */
typedef struct gq_batched_params {
	int64_t m, n, k, batch;
	int64_t lda, ldb, ldc;
	int64_t stride_a, stride_b, stride_c;
	int32_t a_trans, b_trans; /* 1: A stored [K,M]; 1: B stored [N,K] */
	int32_t a_fp32, out_fp32; /* A FP32 (else BF16; B is BF16); out FP32 (else BF16) */
	const void *a, *b;
	void *out;
} gq_batched_params;

/* The grid's limits: batch and ⌈M/32⌉ at most 65535. */
#define GQ_BATCHED_TILE     32
#define GQ_BATCHED_MAX_GRID 65535

/* Enqueue the kernel on stream; cudaGetLastError after the launch. */
cudaError_t gq_batched_launch(const gq_batched_params *p, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
