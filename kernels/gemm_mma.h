/* gemm_mma.h: the tensor-core GEMM kernels behind gemmq:det, gemmq:split and gemmq:streamk, as a
 * C interface between the programs (kernels.c) and the CUDA code (gemm_mma_*.cu).
 *
 * One GEMM: out[M,N] = opA(A)·opB(B), BF16 inputs, FP32 accumulation, row-major output. The three
 * operand layouts are those of problem.h:
 *   GQ_MMA_LAYOUT_FWD    A stored [M,K], B stored [N,K]  (fwd, router_fwd: both K-major)
 *   GQ_MMA_LAYOUT_DGRAD  A stored [M,K], B stored [K,N]  (dgrad, router_dgrad: B N-major)
 *   GQ_MMA_LAYOUT_WGRAD  A stored [K,M], B stored [K,N]  (wgrad, router_wgrad: both MN-major)
 * The contiguous dimension of every operand must be a multiple of 8 elements and every pointer
 * 16-byte aligned (16-byte cp.async chunks are then wholly inside or wholly outside a tensor); any
 * other size, odd T included, is handled inside the kernels by predicated zero-fill loads and
 * bounds-checked stores.
 *
 * A kernel computes BM×BN output tiles over a range of BK = 32 wide K-tiles (mma.sync m16n8k16,
 * ldmatrix, cp.async pipeline; see gemm_mma_kernel.cuh). What it does with a tile's FP32
 * accumulators is the mode:
 *   GQ_MMA_STORE    grid (n_tiles, m_tiles, 1): round to the output dtype and store to out.
 *   GQ_MMA_SLICES   grid (n_tiles, m_tiles, S): store split z's partial to ws[z][M][N] (FP32).
 *   GQ_MMA_ATOMIC   grid (n_tiles, m_tiles, S): atomically add the partial into ws[M][N] (FP32,
 *                   zeroed by the caller; ws may be the output itself when it is FP32).
 *   GQ_MMA_STREAMK  grid (sk_ctas): CTA g owns iterations [g·total/G, (g+1)·total/G) of the
 *                   linear (tile, K-tile) space, total = tiles·k_tiles. A tile it covers whole is
 *                   stored to out; a part of a tile goes to its slot ws[(2g + s)·BM·BN], s = 0 for
 *                   the segment its range starts with, 1 for the one it ends with. The fixup
 *                   kernel then sums each split tile's slots in K order.
 * Split z of S owns K-tiles [z·kt_per_split, min((z+1)·kt_per_split, k_tiles)).
 */
#ifndef GQ_GEMM_MMA_H
#define GQ_GEMM_MMA_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GQ_MMA_BK 32 /* K-tile width, elements */

typedef enum gq_mma_layout {
	GQ_MMA_LAYOUT_FWD = 0,
	GQ_MMA_LAYOUT_DGRAD,
	GQ_MMA_LAYOUT_WGRAD,
	GQ_MMA_LAYOUT_COUNT
} gq_mma_layout;

typedef enum gq_mma_mode {
	GQ_MMA_STORE = 0,
	GQ_MMA_SLICES,
	GQ_MMA_ATOMIC,
	GQ_MMA_STREAMK
} gq_mma_mode;

/* Everything a GEMM kernel launch reads; passed by value. */
typedef struct gq_mma_params {
	const uint16_t *a, *b; /* BF16 bits, layouts as above */
	void *out;             /* BF16 bits or FP32, [M,N] */
	float *ws;             /* FP32 workspace of the mode (see above) */
	int64_t m, n, k;
	int64_t k_tiles;  /* ceil(K / GQ_MMA_BK) */
	int64_t sk_total; /* GQ_MMA_STREAMK: m_tiles·n_tiles·k_tiles */
	int32_t m_tiles, n_tiles;
	int32_t kt_per_split; /* GQ_MMA_SLICES, GQ_MMA_ATOMIC */
	int32_t sk_ctas;      /* GQ_MMA_STREAMK: G */
	int32_t mode;         /* gq_mma_mode */
	int32_t out_fp32;     /* 1: out is FP32, 0: BF16 */
} gq_mma_params;

/* One compiled GEMM kernel: a tile shape for one layout. */
typedef struct gq_mma_kernel {
	const void *func; /* the __global__ function, for cudaLaunchKernel */
	int layout, bm, bn, threads, stages;
	size_t smem_bytes; /* dynamic shared memory per CTA */
} gq_mma_kernel;

/* The tile shapes that are compiled: BM ∈ {32, 64, 128} × BN ∈ {64, 128, 256}, every layout. */
#define GQ_MMA_BM_COUNT 3
#define GQ_MMA_BN_COUNT 3

/* Find the kernel for (layout, bm, bn). Returns 0, or -1 when that shape is not compiled. */
int gq_mma_kernel_find(gq_mma_layout layout, int bm, int bn, gq_mma_kernel *kernel);

/* Per-layout tables, one per .cu file (gemm_mma_fwd.cu, …); used by gq_mma_kernel_find. */
int gq_mma_find_fwd(int bm, int bn, gq_mma_kernel *kernel);
int gq_mma_find_dgrad(int bm, int bn, gq_mma_kernel *kernel);
int gq_mma_find_wgrad(int bm, int bn, gq_mma_kernel *kernel);

/* Allow the kernel its dynamic shared memory and report how many of its CTAs fit on one SM.
 * Returns cudaSuccess or the first error (cudaErrorNoKernelImageForDevice on a GPU that is not
 * sm_90). */
cudaError_t gq_mma_kernel_setup(const gq_mma_kernel *kernel, int *ctas_per_sm);

/* Enqueue the GEMM kernel with grid (gx, gy, gz) on stream. Returns the launch's error. */
cudaError_t gq_mma_gemm_launch(const gq_mma_kernel *kernel, const gq_mma_params *p, int gx, int gy,
                               int gz, cudaStream_t stream);

/* out[i] = Σ_{s=0}^{S-1} ws[s·count + i], summed in s order, rounded to BF16 (RNE) or stored as
 * FP32; count must be a multiple of 4. With S = 1 it converts an FP32 buffer to BF16. */
cudaError_t gq_mma_reduce_launch(const float *ws, int splits, int64_t count, void *out,
                                 int out_fp32, cudaStream_t stream);

/* The stream-K fixup: every tile split between CTAs is summed from its slots in K order and
 * stored to out (p as given to the GEMM kernel, mode GQ_MMA_STREAMK; bm, bn its tile shape). */
cudaError_t gq_mma_streamk_fixup_launch(const gq_mma_params *p, int bm, int bn,
                                        cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
