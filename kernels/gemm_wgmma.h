/* gemm_wgmma.h: the Hopper weight-gradient GEMM (wgmma + TMA) behind gemmq:det and gemmq:split
 * for wgrad and router_wgrad, as a C interface between kernels.c and gemm_wgmma.cu.
 *
 * out[M,N] = Aᵀ·B with A stored [K,M] (g) and B stored [K,N] (x), both MN-major, K = T the outer
 * dimension; BF16 in, FP32 accumulation, row-major FP32 or BF16 out. M and N must be multiples
 * of 8 and the pointers 16-byte aligned (the tensor maps' row strides must be multiples of 16
 * bytes); any K ≥ 1 works: the tensor copies fill rows past K (and columns past M or N) with
 * zeros. Where M < 64, A's box is M columns wide instead (gq_wg_a_box) and the kernel zeroes the
 * rest of A's rows in the ring once: a box of 64 columns over fewer made the GEMM 0.8 % (d_out
 * 32) and 1.3 % (d_out 48) slower at T ≥ 40963 on an H200 (the sixth round of
 * the experiment log of 5e691b9).
 *
 * A CTA computes a BM×BN tile over its share of the K-blocks of GQ_WG_BK rows: one producer warp
 * (a warpgroup for the 64×320 tile) loads each K-block's A and B tiles with cp.async.bulk.tensor
 * (128-byte swizzle, 64 columns per box) into a ring of stages guarded by mbarriers; one or two
 * consumer warpgroups each own a 64×WN part of the tile (WN = 64 for 64×64, 64×128 and 128×64,
 * which then fit two or three CTAs on an SM; 192 and 128 for 64×320; else 128) and multiply with
 * wgmma.mma_async m64nWNk16, both operands MN-major from shared memory. Accumulation is
 * two-level, as in gemm_mma.h: the tensor cores accumulate a chunk of K-blocks into fresh
 * registers (scale-d 0 on the first wgmma of a chunk), which are then added into the FP32 running
 * sums with round-to-nearest adds; the tensor cores' truncating accumulation would otherwise grow
 * with K. A chunk is one round of the ring of stages (4 K-blocks, 256 of K) for the tiles of
 * WN = 64 and two rounds (8 to 12 K-blocks) for those of WN ≥ 128, whose consumers keep a stage's
 * multiplies running while they issue the next stage's (gq_wg_cfg in gemm_wgmma.cu);
 * gemmq:streamk's chunks are GQ_WG_CHUNK_KBLOCKS K-blocks.
 *
 * Tiles (BM, BN): (64, 64), (64, 128), (64, 256), (64, 320; gemmq:split only, no stream-K),
 * (128, 64), (128, 128). With BM = 128 two consumer warpgroups split M; with (64, 128),
 * (64, 256) and (64, 320) they split N. 128×256 is not compiled: each consumer thread holds
 * 2·WN/2 FP32 values, and four consumer warpgroups of WN = 128 would not fit in the register
 * file.
 *
 * Grid (m_tiles, n_tiles, splits): the M tiles of one N tile run side by side and share its B
 * rows in L2. Split z owns K-blocks [z·kb_per_split, min((z+1)·kb_per_split, kblocks)). Modes
 * as in gemm_mma.h: GQ_MMA_STORE (round and store to out), GQ_MMA_SLICES (ws[z][M][N], summed
 * by gq_mma_reduce_launch), GQ_MMA_ATOMIC (FP32 atomic adds into ws, zeroed by the caller or,
 * with zero_in_kernel, by split 0's producer by TMA stores early in its loop, the other splits'
 * adds waiting for it; with BF16 out the caller then rounds ws into out with gq_mma_reduce_launch,
 * launched as the GEMM's programmatic dependent so that its launch overlaps the GEMM: against the
 * tile's last CTA rounding its tile inside the GEMM (tile counters), BF16 out then cost 1.5-1.8 µs
 * more than FP32 out at d_out 128 instead of 2.8 (medians of two calls; 1.0 instead of 1.7 at
 * d_out 32), and the best split program with BF16 out was 1.2 % faster at d_out 128; H200, tenth
 * round of the experiment log of 5e691b9). The splits rounding their own blocks once
 * every split has added (counters in the workspace) cost the same 1.6-1.8 µs: about half of it is
 * seeing that the last split's adds are complete, half reading the sums back (twentieth round).
 * The atomic adds are the TMA unit's (cp.reduce.async.bulk.tensor, through a third tensor map
 * over ws): each consumer warpgroup stages its sums in the idle ring and adds them as boxes of
 * 64 × 32. Against float2 atomics from the registers, the best split program was 0.5 % faster at
 * d_out 128 and T ≥ 65471, 1.3-1.5 % at T = 40963 and 3.3 % at T ≤ 16384 (medians, H200; tenth
 * round of the experiment log of 5e691b9).
 *
 * Stream-K (GQ_MMA_STREAMK, gq_wg_sk_launch): CTAs that each own a contiguous run of the (tile,
 * K-block) iterations (gemm_mma.h's geometry, K-blocks for K-tiles), taken one segment of a tile
 * at a time through the same ring and consumers; a segment that is its tile whole is stored to
 * out, the others to their slots of ws, summed in K order by the stream-K fixup of gemm_mma.h.
 * With several M tiles the problem is one row of tiles per M tile (sk_groups), its CTAs side by
 * side, so that the M tiles of an N tile read the same rows of x at the same time (as the split
 * programs' grid has them). No clusters.
 *
 * Loads carry L2 hints: g (A), read again by the CTAs of every N tile, is evicted last; x (B),
 * read once, is evicted first, except where it streams (gq_wg_stream_b): with M ≤ 64 and x at
 * least four times the L2, x's copies carry no hint and its map no L2 promotion, the way
 * cuBLASLt's kernels copy. On an H200 the split programs are then 1-7 % faster at T ≥ 40963
 * (d_in 4096 and 5120, d_out ≤ 64; 4 % at the median) and would be 5-13 % slower at T ≤ 16384,
 * where x is about twice the L2 (the experiment log of 5e691b9, fifth round). The other
 * maps promote a missed line to 128 bytes, not 256: at T ≤ 16384 the best split program is then
 * 1.7-2.4 % faster at d_out 128 and 0.8-1.2 % at d_out ≤ 64 (medians of two calls), and unchanged
 * at T ≥ 65471 (ninth round).
 *
 * Shared copies (gq_wg_share): with 64 < M ≤ 128 and x at least six times the L2, the two tiles
 * of d_out 128 launch as thread block clusters whose CTAs copy one part each of the operand they
 * have in common, multicast to all of them, and x streams as above. The 128×128 tile (one M
 * tile): clusters of 2 or 4 N tiles share g, each CTA copying one box of it (clusters of 2) or a
 * 32-row half of one (clusters of 4, where all of the grid's clusters fit on the GPU at once;
 * gq_wg_cluster_for). The 64×256 and 64×320 tiles (two M tiles): the M tiles of an N tile share
 * x, each CTA copying half of its boxes (of five, the first CTA three). A stage is refilled when
 * the consumers of every CTA of the cluster have released it, and each producer stays until they
 * have released its last stages.
 * Only grids that keep at least 7/8 of the SMs busy share (gq_wg_share_fills).
 * Measured as knobs on an H200 (the experiment log of 5e691b9, eighth round), the best
 * split program at d_out 128 was then 3-4 % faster at 4096, T ≥ 65471 (the 64×256 tile), 6-7 %
 * at 5120, T ≥ 65471 (clusters of 4), 2-3 % at 5120, T = 40963, and would have been 1-2 %
 * slower at 4096, T = 40963 (x 5.3 L2s) and up to 8 % at T ≤ 16384; streaming x alone or
 * sharing g alone gained at most 2.5 %. Consumers that multiply nothing ran as fast: at these
 * points the copies set the pace, not the tensor cores.
 */
#ifndef GQ_GEMM_WGMMA_H
#define GQ_GEMM_WGMMA_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __CUDACC__
#define GQ_WG_HD __host__ __device__ /* also called by the kernel */
#else
#define GQ_WG_HD
#endif

#ifdef __cplusplus
#define GQ_WG_ALIGN64 alignas(64)
extern "C" {
#else
#define GQ_WG_ALIGN64 _Alignas(64)
#endif

#define GQ_WG_BK             64 /* K rows per K-block */
#define GQ_WG_CHUNK_KBLOCKS  4  /* gemmq:streamk: K-blocks per accumulation chunk (256 of K) */
#define GQ_WG_TENSOR_MAP_SIZE 128
#define GQ_WG_MAX_CONSUMERS  2  /* consumer warpgroups of a CTA, at most */

#define GQ_WG_ORDER_MAX 64 /* clusters that gq_wg_cluster_order may reorder */

typedef struct gq_wg_params {
	const uint16_t *a, *b; /* BF16 bits: A [K,M], B [K,N] */
	void *out;             /* [M,N], FP32 or BF16 */
	float *ws;             /* GQ_MMA_SLICES, GQ_MMA_ATOMIC */
	int64_t m, n, k;
	int32_t bm, bn;
	int32_t splits, kb_per_split;
	int32_t mode;     /* gq_mma_mode: STORE, SLICES or ATOMIC */
	int32_t out_fp32; /* 1: out is FP32 */
	int32_t b_stream; /* 1: B's copies without L2 hint, its map without L2 promotion */
	int32_t share;    /* gq_wg_share_mode; with GQ_WG_SHARE_NONE, cluster is 1 */
	int32_t cluster;  /* CTAs per cluster: 1, or 2 or 4 for GQ_WG_SHARE_G, 2 for _X */
	/* GQ_MMA_ATOMIC with every CTA resident at once: split 0's producer zeroes the sums in the
	 * kernel (gq_wg_tma_zero) instead of a memset before it (gq_wg_zero_sync_words counters in
	 * zsync, zeroed once) */
	int32_t zero_in_kernel;
	uint64_t *zsync;
	/* the clusters' launch order (gq_wg_cluster_order): cluster c = blockIdx.y + gridDim.y ·
	 * blockIdx.z takes N tile order[c] % gridDim.y and split order[c] / gridDim.y; with
	 * order_n = 0, c itself */
	int32_t order_n;
	uint8_t order[GQ_WG_ORDER_MAX];
} gq_wg_params;

/* Whether a grid of ctas CTAs zeroes its sums inside the kernel (zero_in_kernel): when it adds
 * them (atomic: GQ_MMA_ATOMIC) and every CTA can be resident at once (ctas ≤ target, the SMs
 * times the kernel's CTAs per SM). The splits past the first wait at their end for split 0 of
 * their tile (blockIdx.z = 0), which zeroes it early in its loop; gq_wg_launch launches such a
 * grid cooperatively, so that all of its CTAs are resident at once or the launch is refused. */
static inline int gq_wg_zeroes_in_kernel(int atomic, int64_t ctas, int64_t target)
{
	return atomic && ctas <= target;
}

/* The 64-bit counters zsync holds for a grid of tiles tiles: one per tile (the splits past the
 * first count their start), then one per tile (split 0 counts its tile zeroed). */
static inline int64_t gq_wg_zero_sync_words(int64_t tiles)
{
	return 2 * tiles;
}

/* What the CTAs of a cluster share (see the top). */
typedef enum gq_wg_share_mode {
	GQ_WG_SHARE_NONE = 0,
	GQ_WG_SHARE_G = 1, /* the 128×128 tile: N tiles along the cluster share A (g) */
	GQ_WG_SHARE_X = 2, /* the 64×256 and 64×320 tiles: the two M tiles share B (x) */
} gq_wg_share_mode;

/* 1 when B (x, [k, n] BF16) should stream past the L2 (see the top): m ≤ 64 and B at least
 * four times l2_bytes. */
static inline int gq_wg_stream_b(int64_t m, int64_t n, int64_t k, int64_t l2_bytes)
{
	return m <= 64 && l2_bytes > 0 && k * n * 2 >= 4 * l2_bytes;
}

/* How a (bm, bn) launch of an [m, n] output over k rows shares its copies (see the top): 64 < m
 * ≤ 128 and B (x) at least six times l2_bytes; GQ_WG_SHARE_G at 128×128, _X at 64×256. B then
 * streams as well. gq_wg_cluster_for chooses the cluster. */
static inline int gq_wg_share(int64_t m, int64_t n, int64_t k, int bm, int bn, int64_t l2_bytes)
{
	if (m <= 64 || m > 128 || l2_bytes <= 0 || k * n * 2 < 6 * l2_bytes)
		return GQ_WG_SHARE_NONE;
	if (bm == 128 && bn == 128)
		return GQ_WG_SHARE_G;
	if (bm == 64 && (bn == 256 || bn == 320))
		return GQ_WG_SHARE_X;
	return GQ_WG_SHARE_NONE;
}

/* 1 when a grid of ctas CTAs keeps enough of the sms SMs busy for the shared copies to pay: at
 * least 7/8 of them. On an H200 at 4096x128, T ≥ 65471, the split programs of 96 CTAs (3
 * splits) were 2-5 % slower shared, those of 120 and 128 faster (eighth round, call 4). */
static inline int gq_wg_share_fills(int64_t ctas, int64_t sms)
{
	return 8 * ctas >= 7 * sms;
}

/* The order in which a grid of clusters (pairs of M tiles that share x) takes its (N tile,
 * split) work: cluster c (in launch order) takes the work order[c], n_tiles · split + N tile.
 * Returns the clusters it reorders (clusters), or 0 where the launch order stays the work's.
 * Clusters are placed on the SMs in launch order, GPC by GPC (sixth round of
 * the experiment log of 5e691b9), so the order decides which tiles and splits share a
 * GPC. The table is the one cuBLASLt passes its nvjet kernels for their grids of 64 clusters of
 * 2 at 4096x128 and 5120x128 (the same 16 N tiles × 4 splits as our n256:s4 and n320:s4 there;
 * the thirty-fourth round's capture, decoded in the forty-third): the first four, then the
 * clusters r mod 8 for r = 0 … 7 in turn, cluster 4 + r first for r < 4. It made those two
 * programs up to 1.3 µs faster at T ≥ 65471 on one H200 and 0.7-1.5 µs on another, where three
 * other orders (the splits of an N tile side by side, the clusters r mod 8 without the first
 * four, reversed) were no faster than the launch order (forty-third round). Other grids keep
 * the launch order: untimed. */
static inline int gq_wg_cluster_order(int clusters, uint8_t *order)
{
	if (clusters != 64)
		return 0;
	int k = 0;
	for (int c = 0; c < 4; c++)
		order[k++] = (uint8_t)c;
	for (int r = 0; r < 8; r++) {
		if (r < 4)
			order[k++] = (uint8_t)(4 + r);
		for (int a = 1; a < 8; a++)
			order[k++] = (uint8_t)(8 * a + r);
	}
	return k;
}

/* Rows of A's box: 32 where clusters of 4 share g (each CTA copies half a box), else a
 * K-block's. */
static inline GQ_WG_HD int gq_wg_a_rows(int share, int cluster)
{
	return share == GQ_WG_SHARE_G && cluster == 4 ? GQ_WG_BK / 2 : GQ_WG_BK;
}

/* Columns of A's (g's) box: M where M < 64 (the tile is then BM = 64, one box), so that the copies
 * carry no columns past M; else 64. M is a multiple of 8: a box row is a multiple of 16 bytes. */
static inline GQ_WG_HD int gq_wg_a_box(int64_t m)
{
	return m < 64 ? (int)m : 64;
}

/* The tensor maps of a launch (CUtensorMap, opaque here), encoded for a, b and (GQ_MMA_ATOMIC)
 * ws. */
typedef struct gq_wg_maps {
	GQ_WG_ALIGN64 unsigned char a[GQ_WG_TENSOR_MAP_SIZE];
	GQ_WG_ALIGN64 unsigned char b[GQ_WG_TENSOR_MAP_SIZE];
	GQ_WG_ALIGN64 unsigned char c[GQ_WG_TENSOR_MAP_SIZE]; /* GQ_MMA_ATOMIC: the FP32 sums, ws */
	const void *for_a, *for_b, *for_c; /* the pointers they were encoded for (for_c: NULL
	                                    * where the mode is not GQ_MMA_ATOMIC) */
	int64_t m, n, k;
	int32_t bm, bn;
	int32_t b_stream, a_rows;
} gq_wg_maps;

/* 1 when (bm, bn) is compiled. */
int gq_wg_tile_supported(int bm, int bn);

/* Allow the (bm, bn) kernel its shared memory; its block size and shared memory bytes, and how
 * many of its CTAs fit on one SM. cudaErrorInvalidValue for a tile that is not compiled. */
cudaError_t gq_wg_setup(int bm, int bn, int *threads, size_t *smem_bytes, int *ctas_per_sm);

/* p->cluster for p->share (p's grid and tile as planned): GQ_WG_SHARE_X 2; GQ_WG_SHARE_G 4 where
 * the N tiles divide by 4 and every cluster of 4 fits on the device at once, else 2 where they
 * divide by 2 and fit; else 1 with p->share set back to GQ_WG_SHARE_NONE. Needs gq_wg_setup
 * first. */
cudaError_t gq_wg_cluster_for(gq_wg_params *p);

/* Encode the tensor maps of p's a, b and, with GQ_MMA_ATOMIC, ws into maps, unless maps already
 * holds them (same pointers, shape, b_stream and A's box rows). Returns cudaSuccess, or
 * cudaErrorInvalidValue with *why set when the driver refuses the maps (or lacks
 * cuTensorMapEncodeTiled). */
cudaError_t gq_wg_encode(const gq_wg_params *p, gq_wg_maps *maps, const char **why);

/* Enqueue the GEMM kernel of p's tile with grid (m_tiles, n_tiles, splits); with b_stream
 * its instance without B's L2 hint (compiled for BM = 64 and the shared copies), with share
 * its instance for clusters of p->cluster (cudaErrorInvalidValue for others). */
cudaError_t gq_wg_launch(const gq_wg_params *p, const gq_wg_maps *maps, cudaStream_t stream);

/* gemmq:streamk on this kernel (gq_wg_sk_kernel): p's tile, operands and x's streaming (share
 * NONE, no splits), q the stream-K geometry of gemm_mma.h in K-blocks of GQ_WG_BK (k_tiles =
 * K-blocks; mode GQ_MMA_STREAMK; its slots in p->ws, 2·q->sk_ctas tiles of BM × BN FP32 per
 * group, q->sk_groups of them: the M tiles, with q->m_tiles 1), maps
 * from gq_wg_encode of p. gq_mma_streamk_fixup_launch(q, bm, bn) must follow. cudaErrorInvalidValue
 * for a tile or geometry this kernel has not. */
struct gq_mma_params;
cudaError_t gq_wg_sk_launch(const gq_wg_params *p, const struct gq_mma_params *q,
                            const gq_wg_maps *maps, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
