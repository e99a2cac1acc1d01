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
 * ldmatrix, cp.async pipeline; see gemm_mma_kernel.cuh). Accumulation is two-level: the tensor
 * cores accumulate GQ_MMA_CHUNK_KTILES K-tiles of a chain into fresh accumulators, which are then
 * added into the running FP32 sums with round-to-nearest adds. The tensor cores' own FP32
 * accumulation truncates, and its error grows with the length of a chain (measured on the H200:
 * about 1.8e-8 relative per k16 step, rel_fro 7.6e-5 for one chain over K = 65537); with chunks
 * it stays at the level of one chunk (~3e-7) whatever K is.
 *
 * What a kernel does with a tile's sums is the mode:
 *   GQ_MMA_STORE    grid (tiles, 1): round to the output dtype and store to out.
 *   GQ_MMA_SLICES   grid (tiles, S): store split z's partial to ws[z][M][N] (FP32).
 *   GQ_MMA_ATOMIC   grid (tiles, S): atomically add the partial into ws[M][N] (FP32, zeroed by
 *                   the caller; ws may be the output itself when it is FP32).
 *   GQ_MMA_STREAMK  grid (sk_ctas): CTA g owns iterations [g·total/G, (g+1)·total/G) of the
 *                   linear (tile, K-tile) space, total = tiles·k_tiles. A tile it covers whole is
 *                   stored to out; a part of a tile goes to its slot ws[(2g + s)·BM·BN], s = 0 for
 *                   the segment its range starts with, 1 for the one it ends with. The fixup
 *                   kernel then sums each split tile's slots in K order. With sk_groups = S > 1
 *                   (gemm_wgmma.h) the problem is that of one row of tiles (m_tiles 1) S times,
 *                   once per M tile z: its CTAs and the fixup's carry z (the fixup as
 *                   blockIdx.z), its tiles start at row z·BM, and its slots follow group z − 1's
 *                   (2·sk_ctas each), so that the CTAs of the M tiles of one N tile run side by
 *                   side over the same K-tiles and share B's rows in L2.
 * "tiles" is m_tiles·n_tiles laid out over gridDim.x and gridDim.y with the M tiles fastest when
 * m_fastest (the wgrad case: the M tiles of one N tile read the same B rows, so they run side by
 * side and share them in L2), else the N tiles fastest. Split z of S (gridDim.z) owns K-tiles
 * [z·kt_per_split, min((z+1)·kt_per_split, k_tiles)).
 */
#ifndef GQ_GEMM_MMA_H
#define GQ_GEMM_MMA_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CUDACC__
#define GQ_MMA_HD __host__ __device__
#else
#define GQ_MMA_HD
#endif

#define GQ_MMA_BK           32 /* K-tile width, elements */
#define GQ_MMA_CHUNK_KTILES 8  /* K-tiles per tensor-core accumulation chunk (256 of K) */

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
	int32_t m_fastest;    /* 1: blockIdx.x walks the M tiles, else the N tiles */
	int32_t sk_groups;    /* GQ_MMA_STREAMK: 0 or 1, or the M tiles (the wgmma kernels) */
} gq_mma_params;

/* One compiled GEMM kernel: a tile shape for one layout. */
typedef struct gq_mma_kernel {
	const void *func; /* the __global__ function, for cudaLaunchKernel */
	int layout, bm, bn, threads, stages;
	int k_groups;      /* warp groups that share the block's K-tiles (sliced K) */
	size_t smem_bytes; /* dynamic shared memory per CTA */
} gq_mma_kernel;

/* The tile shapes that are compiled for every layout: BM ∈ {32, 64, 128} × BN ∈ {64, 128, 256},
 * except 128×256 (its 128 FP32 sums per thread of 16 warps would not fit in the registers next to
 * the chunk accumulators). */
#define GQ_MMA_TILE_COUNT 8

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
 * FP32; count must be a multiple of 4. With S = 1 it converts an FP32 buffer to BF16. With
 * programmatic, the kernel is launched as the programmatic dependent of the kernel before it on
 * stream, so that its launch overlaps that kernel (which lets it start with
 * griddepcontrol.launch_dependents); it still reads only after that kernel has finished. */
cudaError_t gq_mma_reduce_launch(const float *ws, int splits, int64_t count, void *out,
                                 int out_fp32, int programmatic, cudaStream_t stream);

/* The stream-K fixup: every tile split between CTAs is summed from its slots in K order and
 * stored to out (p as given to the GEMM kernel, mode GQ_MMA_STREAMK; bm, bn its tile shape). */
cudaError_t gq_mma_streamk_fixup_launch(const gq_mma_params *p, int bm, int bn,
                                        cudaStream_t stream);

/* The M tile and N tile of linear tile index t (stream-K; the split modes use the grid the same
 * way): the M tiles run fastest when m_fastest, else the N tiles. */
static inline GQ_MMA_HD void gq_mma_tile_coords(const gq_mma_params *p, int64_t t, int64_t *tm,
                                                int64_t *tn)
{
	if (p->m_fastest) {
		*tn = t / p->m_tiles;
		*tm = t - *tn * p->m_tiles;
	} else {
		*tm = t / p->n_tiles;
		*tn = t - *tm * p->n_tiles;
	}
}

/* Stream-K geometry, shared by the kernels and the CPU tests (tests/kernels/test_kernels.c).
 *
 * The first iteration of CTA g (g = G gives the end of the last): g·total/G. With G ≤ total every
 * CTA owns at least one iteration. */
static inline GQ_MMA_HD int64_t gq_mma_sk_begin(const gq_mma_params *p, int64_t g)
{
	return g * p->sk_total / p->sk_ctas;
}

/* The groups of a stream-K launch (sk_groups; 0 means one), and the first slot of group z: the
 * groups' slots follow one another, 2·sk_ctas each. */
static inline GQ_MMA_HD int64_t gq_mma_sk_groups(const gq_mma_params *p)
{
	return p->sk_groups > 1 ? p->sk_groups : 1;
}
static inline GQ_MMA_HD int64_t gq_mma_sk_group_slot0(const gq_mma_params *p, int64_t z)
{
	return z * 2 * p->sk_ctas;
}

/* The segment that starts at iteration it of a CTA whose range ends at end: its tile and
 * K-tiles [kt0, kt1). */
static inline GQ_MMA_HD void gq_mma_sk_segment(const gq_mma_params *p, int64_t it, int64_t end,
                                               int64_t *tile, int64_t *kt0, int64_t *kt1)
{
	*tile = it / p->k_tiles;
	*kt0 = it - *tile * p->k_tiles;
	*kt1 = *kt0 + (end - it) < p->k_tiles ? *kt0 + (end - it) : p->k_tiles;
}

/* The slot a segment of CTA g goes to: -1 when it covers its tile whole (stored to out), else
 * 2g for the segment its range starts with, 2g + 1 for a later one (only the last can be partial).
 */
static inline GQ_MMA_HD int64_t gq_mma_sk_slot(const gq_mma_params *p, int64_t g, int64_t it,
                                               int64_t kt0, int64_t kt1)
{
	if (kt0 == 0 && kt1 == p->k_tiles)
		return -1;
	return 2 * g + (it == gq_mma_sk_begin(p, g) ? 0 : 1);
}

/* The fixup of boundary g, 1 ≤ g < G, at iteration b_g = begin(g). The tile t holding b_g is
 * split when b_g is not a multiple of k_tiles; boundary g handles it only when the previous
 * boundary b_{g−1} ≤ t·k_tiles (no earlier boundary inside t). Returns 1 then, with the tile and
 * the slot of its first part: CTA g−1 contributes slot 2(g−1) when its range starts at the tile's
 * start, else 2(g−1) + 1 (the tile is its last segment). The later parts, in K order, are slots
 * 2c of CTAs c = g, g+1, … while begin(c) < (t+1)·k_tiles (the tile is their first segment). */
static inline GQ_MMA_HD int gq_mma_sk_fixup_tile(const gq_mma_params *p, int64_t g, int64_t *tile,
                                                 int64_t *first_slot)
{
	const int64_t b = gq_mma_sk_begin(p, g), prev = gq_mma_sk_begin(p, g - 1);
	if (b % p->k_tiles == 0)
		return 0;
	*tile = b / p->k_tiles;
	const int64_t t0 = *tile * p->k_tiles;
	if (prev > t0)
		return 0;
	*first_slot = 2 * (g - 1) + (prev == t0 ? 0 : 1);
	return 1;
}

#ifdef __cplusplus
}
#endif
#endif
