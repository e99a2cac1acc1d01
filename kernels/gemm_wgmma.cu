/* gemm_wgmma.cu: the Hopper weight-gradient GEMM, wgmma + TMA (see gemm_wgmma.h).
 *
 * Shared memory of a CTA: STAGES stages, each the K-block's A tile then its B tile. A tile of
 * W columns (W = BM for A, BN for B) is W/64 boxes of [GQ_WG_BK rows × 64 columns], 8 KiB each,
 * stored one after the other (with M < 64, A's box brings M columns of each row and the rest of
 * the row stays zero); inside a box, row r (a K index) is 128 bytes at r·128, with the
 * 16-byte chunks of each row permuted by the 128-byte swizzle (chunk c of row r at c ^ (r % 8)).
 * That is the canonical MN-major layout of wgmma with 128-byte swizzle: eight rows of 64 columns
 * form a 1024-byte atom; the next eight rows (K) follow at the stride byte offset, 1024; the next
 * 64 columns (M or N) at the leading byte offset, one box (GQ_WG_BK·128 bytes). A k16 step is two
 * atoms, 2048 bytes, so every wgmma starts on an atom.
 *
 * Barriers: full[s] completes when the stage's bytes have landed (one arrive with the expected
 * byte count, by the producer, plus the copies' transaction bytes); empty[s] when every consumer
 * warp has finished reading it (one arrive per consumer warp). Round r = i / STAGES of K-block i
 * waits for phase parity r & 1 of full[s], and the producer, before refilling stage s in round r
 * ≥ 1, for parity (r − 1) & 1 of empty[s]. The producer's loop carries the stage, its parity and
 * the shared addresses (barriers, copy targets) from one K-block to the next rather than derive
 * them from i; the consumers' loop (gq_wg_consume) is unrolled over the ring's stages, so that a
 * stage's barriers and descriptors are fixed offsets from the first stage's (fourteenth round),
 * and with the tiles of WN ≥ 128 releases a stage one K-block later, once the next stage's
 * multiplies are issued and its own have finished (fifteenth round); a wait is one
 * try_wait loop inside the asm whose tries may suspend the thread until the phase completes (the
 * suspend-time hint) rather than poll (with the carried state, 0.3-0.7 % faster at T ≥ 40963 on
 * an H200: the experiment log of 5e691b9, seventh round).
 *
 * Clusters (gemm_wgmma.h, shared copies): each producer issues its part of the shared operand
 * multicast to every CTA of the cluster, completing on the same full[s] of each (so each CTA
 * still expects the whole stage's bytes); empty[s] counts the consumer warps of every CTA of the
 * cluster, each of which arrives on the empty[s] of every CTA, because a refill of stage s
 * writes into all of them.
 */
#include "gemm_wgmma.h"

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>
#include <string.h>

#include "gemm_mma.h"

#define GQ_WG_BOX_BYTES (GQ_WG_BK * 128)
#define GQ_WG_MAX_STAGES 8

/* A tile's shape on the SM. A consumer warpgroup owns 64 × WN of the tile: WN = 64 keeps a
 * thread's accumulators and sums at 2 × 32 registers (86 in all), so two or three CTAs share an
 * SM; WN = 128 needs about 150 and one CTA per SM. Several CTAs per SM matter on the memory-bound
 * points: a grid of a few hundred CTAs is then resident at once and shares HBM evenly instead of
 * running a second, partly empty wave. The ring of stages takes the shared memory of its CTAs'
 * share of the SM.
 *
 * The 64×320 tile (gemmq:split:n320, the tile of cuBLASLt's fastest kernel at 5120x128: 16 N
 * tiles × 2 M tiles × 4 splits fill 128 SMs, where the other tiles fill 120 or need two waves)
 * has two consumer warpgroups of unequal width, 192 and 128 columns (WN, WN_LAST), because a
 * wgmma's B must start on one of x's 64-column boxes. The first needs 2 × 96 registers for its
 * accumulators and sums, more than a CTA of 288 threads may have, so the producer is a whole
 * warpgroup (setmaxnreg acts on warpgroups) that gives its registers to the consumers:
 * PRODUCER_REGS each for the producer, CONSUMER_REGS for the consumers (ptxas then spills a few
 * registers in the epilogue only). Three consumer warpgroups (128, 128, 64 columns, 40 and 152
 * registers) were 0.4-0.5 % slower at 5120x128, T >= 40963 (the experiment
 * log of 5e691b9, nineteenth round). */
template <int BM, int BN> struct gq_wg_cfg {
	static constexpr int WN = BN == 320 ? 192 : (BN == 64 || (BM == 64 && BN == 128)) ? 64 : 128;
	static constexpr int WN_LAST = BN == 320 ? 128 : WN;
	static constexpr int WG_M = BM / 64, WG_N = BN == 320 ? 2 : BN / WN; /* along M, N */
	static constexpr int CONSUMERS = WG_M * WG_N;
	static constexpr int PRODUCER_THREADS = BN == 320 ? 128 : 32; /* a warp or a warpgroup */
	static constexpr int THREADS = CONSUMERS * 128 + PRODUCER_THREADS;
	static constexpr int PRODUCER_REGS = 72, CONSUMER_REGS = 216;
	static_assert(PRODUCER_THREADS == 32 ||
	                  PRODUCER_REGS * PRODUCER_THREADS + CONSUMER_REGS * CONSUMERS * 128 <= 65536,
	              "the registers handed over fit in the SM's file");
	static constexpr int CTAS_PER_SM = WN >= 128 ? 1 : (CONSUMERS == 1 ? 3 : 2);
	static constexpr int SMEM_TARGET =
	    CTAS_PER_SM == 1 ? 200 * 1024 : (CTAS_PER_SM == 2 ? 110 * 1024 : 72 * 1024);
	static constexpr int A_BYTES = (BM / 64) * GQ_WG_BOX_BYTES;
	static constexpr int B_BYTES = (BN / 64) * GQ_WG_BOX_BYTES;
	static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
	static constexpr int STAGES = SMEM_TARGET / STAGE_BYTES < GQ_WG_MAX_STAGES
	                                  ? SMEM_TARGET / STAGE_BYTES
	                                  : GQ_WG_MAX_STAGES;
	static constexpr size_t SMEM = (size_t)STAGES * STAGE_BYTES + 1024; /* + alignment slack */
	/* The consumers' loop (gq_wg_consume). PIPE: a stage's multiplies keep running while the
	 * next stage's are issued, and the stage is released one K-block later; a chunk of the
	 * two-level accumulation is CHUNK_ROUNDS rounds of the ring. On an H200 (fifteenth round of
	 * the experiment log of 5e691b9, chunks of three rounds) that changed the programs
	 * of the 1-CTA tiles by -2 to +0.4 % at T >= 40963 (5120x128 n256:s3, T <= 16384: -18 %),
	 * and those of the WN = 64 tiles 1-6 % slower where one CTA runs on an SM (its ring of four
	 * stages then one stage shorter for the copies) and 6-8 % faster where two do; those stay
	 * unpipelined. Chunks of one round there (four K-blocks, as before) and of two with PIPE
	 * (8 to 12 K-blocks: the drain at a chunk's end then comes every other round). The
	 * truncation error of a chunk grows with its length: in the GPU kernel test the worst
	 * rel_fro went from 3.7e-7 to 7.5e-7 with FP32 out and from 2.7e-7 to 6.1e-7 for the router
	 * ops (budgets 5e-5 and 2e-6). */
	static constexpr bool PIPE = WN >= 128;
	static constexpr int CHUNK_ROUNDS = PIPE ? 2 : 1;
	static_assert(CONSUMERS >= 1 && CONSUMERS <= GQ_WG_MAX_CONSUMERS,
	              "one or two consumer warpgroups");
	static_assert(STAGES >= 2, "at least two stages");
};

__device__ __forceinline__ uint32_t gq_wg_smem_addr(const void *p)
{
	return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void gq_wg_bar_init(uint64_t *bar, uint32_t count)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(gq_wg_smem_addr(bar)),
	             "r"(count)
	             : "memory");
}

__device__ __forceinline__ void gq_wg_bar_expect_tx(uint32_t bar, uint32_t bytes)
{
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
	             : "memory");
}

__device__ __forceinline__ void gq_wg_bar_wait(uint32_t addr, uint32_t parity)
{
	/* the retry loop inside the asm, each try allowed to suspend the thread until the phase
	 * completes (suspendTimeHint, in ns) instead of returning at once */
	asm volatile("{\n.reg .pred p;\n"
	             "GQ_WG_WAIT_%=:\n"
	             "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1, %2;\n"
	             "@!p bra GQ_WG_WAIT_%=;\n}\n" ::"r"(addr),
	             "r"(parity), "r"(0x989680)
	             : "memory");
}

/* Load the box at (column c0, row c1) of the tensor map into dst, completing on bar. Rows and
 * columns outside the tensor arrive as zeros. */
__device__ __forceinline__ void gq_wg_tma_load(uint32_t dst, const void *map, int32_t c0,
                                               int32_t c1, uint32_t bar, uint64_t policy)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
	             ".L2::cache_hint [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
	             "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar), "l"(policy)
	             : "memory");
}

/* The same copy with no cache hint: the L2's default policy (B where it streams). */
__device__ __forceinline__ void gq_wg_tma_load_nohint(uint32_t dst, const void *map, int32_t c0,
                                                      int32_t c1, uint32_t bar)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
	             " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
	             "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
	             : "memory");
}

__device__ __forceinline__ uint64_t gq_wg_policy_evict_first()
{
	uint64_t p;
	asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
	return p;
}
__device__ __forceinline__ uint64_t gq_wg_policy_evict_last()
{
	uint64_t p;
	asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
	return p;
}

/* The same copy multicast into the CTAs of the cluster named in mask, with no L2 hint (x) or
 * with one (g). */
__device__ __forceinline__ void gq_wg_tma_load_mc(uint32_t dst, const void *map, int32_t c0,
                                                  int32_t c1, uint32_t bar, uint16_t mask,
                                                  uint64_t policy)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
	             ".multicast::cluster.L2::cache_hint [%0], [%1, {%2, %3}], [%4], %5, %6;" ::"r"(dst),
	             "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar), "h"(mask),
	             "l"(policy)
	             : "memory");
}
__device__ __forceinline__ void gq_wg_tma_load_mc_nohint(uint32_t dst, const void *map,
                                                         int32_t c0, int32_t c1, uint32_t bar,
                                                         uint16_t mask)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
	             ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
	             "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
	             : "memory");
}

__device__ __forceinline__ void gq_wg_cluster_sync()
{
	asm volatile("barrier.cluster.arrive.release.aligned;\n"
	             "barrier.cluster.wait.acquire.aligned;" ::
	                 : "memory");
}

__device__ __forceinline__ uint32_t gq_wg_cluster_rank()
{
	uint32_t r;
	asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
	return r;
}

/* Barrier 1 over the consumer warpgroups only (the producer warp has left). */
__device__ __forceinline__ void gq_wg_consumers_sync(int threads)
{
	asm volatile("bar.sync 1, %0;" ::"r"(threads) : "memory");
}

/* The shared memory descriptor of an MN-major operand at smem address addr (see the top): its
 * low word holds the start address and the leading byte offset (one box), its high word the
 * stride byte offset (1024) and the layout (type 1: 128-byte swizzle), the same for every operand
 * and stage. So the loops carry only the low words, step them with 32-bit adds (a start address
 * stays below 2^18 bytes: the field never carries), and the multiplies join them to the constant
 * high word: the consumers' loop then spends fewer instructions on descriptors. */
#define GQ_WG_DESC_HI ((uint32_t)((1024 >> 4) | (1u << 30)))
__device__ __forceinline__ uint32_t gq_wg_desc_lo(uint32_t addr)
{
	return ((addr & 0x3FFFF) >> 4) | ((uint32_t)((GQ_WG_BOX_BYTES & 0x3FFFF) >> 4) << 16);
}

__device__ __forceinline__ void gq_wg_fence()
{
	asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void gq_wg_commit()
{
	asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void gq_wg_wait_all()
{
	asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

/* Keep the compiler from moving accesses of an accumulator across the asynchronous wgmma. */
template <int R> __device__ __forceinline__ void gq_wg_fence_regs(float (&d)[R])
{
#pragma unroll
	for (int i = 0; i < R; i++)
		asm volatile("" : "+f"(d[i])::"memory");
}

/* The asm of one wgmma with N columns: its head (the scale-d predicate from operand SD, the
 * descriptors joined from the low words at operands A and B and the high word at operand H) and
 * its eight accumulators from i on, as read-write operands. */
#define GQ_WG_MMA_HEAD(SD, A, B, H)                                                                \
	"{\n.reg .pred p;\n.reg .b64 da, db;\nsetp.ne.b32 p, %" #SD ", 0;\n"                        \
	"mov.b64 da, {%" #A ", %" #H "};\nmov.b64 db, {%" #B ", %" #H "};\n"
#define GQ_WG_ACC8(d, i)                                                                           \
	"+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
	    "+f"(d[i + 6]), "+f"(d[i + 7])

/* The accumulators' operand list of a wgmma with N columns: %0 … %(N/2 − 1). */
#define GQ_WG_OPS8(a, b, c, d, e, f, g, h)                                                         \
	"%" #a ", %" #b ", %" #c ", %" #d ", %" #e ", %" #f ", %" #g ", %" #h
#define GQ_WG_OPS32                                                                                \
	GQ_WG_OPS8(0, 1, 2, 3, 4, 5, 6, 7) ", " GQ_WG_OPS8(8, 9, 10, 11, 12, 13, 14, 15) ", "          \
	GQ_WG_OPS8(16, 17, 18, 19, 20, 21, 22, 23) ", " GQ_WG_OPS8(24, 25, 26, 27, 28, 29, 30, 31)
#define GQ_WG_OPS64                                                                                \
	GQ_WG_OPS32 ", " GQ_WG_OPS8(32, 33, 34, 35, 36, 37, 38, 39) ", "                               \
	GQ_WG_OPS8(40, 41, 42, 43, 44, 45, 46, 47) ", " GQ_WG_OPS8(48, 49, 50, 51, 52, 53, 54, 55)     \
	", " GQ_WG_OPS8(56, 57, 58, 59, 60, 61, 62, 63)
#define GQ_WG_OPS96                                                                                \
	GQ_WG_OPS64 ", " GQ_WG_OPS8(64, 65, 66, 67, 68, 69, 70, 71) ", "                               \
	GQ_WG_OPS8(72, 73, 74, 75, 76, 77, 78, 79) ", " GQ_WG_OPS8(80, 81, 82, 83, 84, 85, 86, 87)     \
	", " GQ_WG_OPS8(88, 89, 90, 91, 92, 93, 94, 95)

/* Their read-write operands: d[0] … d[N/2 − 1]. */
#define GQ_WG_ACC32(d) GQ_WG_ACC8(d, 0), GQ_WG_ACC8(d, 8), GQ_WG_ACC8(d, 16), GQ_WG_ACC8(d, 24)
#define GQ_WG_ACC64(d)                                                                             \
	GQ_WG_ACC32(d), GQ_WG_ACC8(d, 32), GQ_WG_ACC8(d, 40), GQ_WG_ACC8(d, 48), GQ_WG_ACC8(d, 56)
#define GQ_WG_ACC96(d)                                                                             \
	GQ_WG_ACC64(d), GQ_WG_ACC8(d, 64), GQ_WG_ACC8(d, 72), GQ_WG_ACC8(d, 80), GQ_WG_ACC8(d, 88)

/* D (+)= A·B for one k16 step, m64nNk16 with N = WN, BF16 in, FP32 accumulators, both operands
 * MN-major (imm-trans-a = imm-trans-b = 1); scale_d 0 overwrites D. da, db: the descriptors' low
 * words (gq_wg_desc_lo). One instance per width: WN, WN / 2 accumulators, and the asm operand
 * numbers of GQ_WG_MMA_HEAD (after the accumulators: da, db, scale_d, the high word). */
template <int WN>
__device__ __forceinline__ void gq_wg_mma(float (&d)[WN / 2], uint32_t da, uint32_t db,
                                          int scale_d);
#define GQ_WG_MMA(WN, R, SD, A, B, H)                                                              \
	template <>                                                                                \
	__device__ __forceinline__ void gq_wg_mma<WN>(float (&d)[R], uint32_t da, uint32_t db,     \
	                                              int scale_d)                                 \
	{                                                                                          \
		asm volatile(GQ_WG_MMA_HEAD(SD, A, B, H)                                           \
		             "wgmma.mma_async.sync.aligned.m64n" #WN "k16.f32.bf16.bf16 {"         \
		             GQ_WG_OPS##R "}, da, db, p, 1, 1, 1, 1;\n}\n"                        \
		             : GQ_WG_ACC##R(d)                                                     \
		             : "r"(da), "r"(db), "r"(scale_d), "r"(GQ_WG_DESC_HI));                \
	}
GQ_WG_MMA(64, 32, 34, 32, 33, 35)
GQ_WG_MMA(128, 64, 66, 64, 65, 67)
GQ_WG_MMA(192, 96, 98, 96, 97, 99)
#undef GQ_WG_MMA

/* A consumer warpgroup's multiplies of one stage, issued as one group and not waited for: the
 * K-block's k16 steps into acc, the first of them overwriting it where fresh (the first K-block
 * of a chunk). da, db: the low words of the stage's descriptors of the warpgroup's A and B
 * (gq_wg_desc_lo). */
template <int WN>
__device__ __forceinline__ void gq_wg_issue_stage(float (&acc)[WN / 2], uint32_t da, uint32_t db,
                                                  int fresh)
{
	gq_wg_fence_regs(acc);
	gq_wg_fence();
#pragma unroll
	for (int kk = 0; kk < GQ_WG_BK / 16; kk++)
		gq_wg_mma<WN>(acc, da + kk * (2048 >> 4), db + kk * (2048 >> 4),
		              (fresh && kk == 0) ? 0 : 1);
	gq_wg_commit();
}

/* Wait for all of the warpgroup's groups; then acc may be read. */
template <int WN> __device__ __forceinline__ void gq_wg_drain(float (&acc)[WN / 2])
{
	gq_wg_wait_all();
	gq_wg_fence_regs(acc);
}
/* Wait for all of the warpgroup's groups but the last. */
__device__ __forceinline__ void gq_wg_wait_one()
{
	asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
}

/* The same, waited for. */
template <int WN>
__device__ __forceinline__ void gq_wg_multiply_stage(float (&acc)[WN / 2], uint32_t da, uint32_t db,
                                                     int fresh)
{
	gq_wg_issue_stage<WN>(acc, da, db, fresh);
	gq_wg_drain<WN>(acc);
}

/* The ring's next stage after stage s: past the last, stage 0 of the next round, whose waits
 * are for the other parity (flip; false for the producer's first round, which waits for no
 * release). */
template <int STAGES>
__device__ __forceinline__ void gq_wg_next_stage(int &s, uint32_t &parity, bool flip)
{
	if (++s == STAGES) {
		s = 0;
		if (flip)
			parity ^= 1;
	}
}

/* The end of a split tile (GQ_MMA_ATOMIC): a consumer warpgroup's 64 × WN sums are added into
 * the FP32 sums in global memory by the TMA unit (cp.reduce.async.bulk.tensor .add, through
 * map_c: boxes of 64 rows × 32 columns, 128-byte swizzle), not by per-thread atomics. The
 * warpgroup stages them in the ring, idle by then: every consumer has finished every stage, so no
 * copy (of this CTA's producer, or multicast by another CTA of the cluster, which copies the same
 * K-blocks) is still to land. Box b of warpgroup wg lies at smem + st_off + b·8192 (st_off:
 * past the warpgroups before it, gq_wg_consumer); in it, row r is 128 bytes at r·128 with its
 * 16-byte chunk c at c ^ (r % 8), the layout the map's swizzle reads, so a warp's float2 stores
 * fall on distinct banks pairwise. With BF16 out, the grid's end makes the sums visible to the
 * rounding kernel after it. */
template <int WN, int THREADS>
__device__ __forceinline__ void gq_wg_reduce_tile(const CUtensorMap *map_c, unsigned char *smem,
                                                  int wg, size_t st_off,
                                                  const float (&sum)[WN / 2], int col, int row,
                                                  uint32_t zbar)
{
	const int tid = threadIdx.x, warp = (tid % 128) / 32, lane = tid & 31;
	gq_wg_consumers_sync(THREADS); /* every warpgroup is done with the ring */
	unsigned char *st = smem + st_off;
#pragma unroll
	for (int j = 0; j < WN / 2; j += 2) { /* the accumulator layout of the epilogue below */
		const int r = 16 * warp + lane / 4 + 8 * ((j >> 1) & 1);
		const int c = 8 * (j >> 2) + 2 * (lane % 4);
		const int at = (c / 32) * 8192 + r * 128 + ((((c % 32) / 4) ^ (r & 7)) * 16) +
		               (c % 4) * 4;
		*reinterpret_cast<float2 *>(st + at) = make_float2(sum[j], sum[j + 1]);
	}
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); /* visible to the TMA unit */
	asm volatile("bar.sync %0, 128;" ::"r"(2 + wg) : "memory");  /* the warpgroup's stores */
	if (tid % 128 != 0)
		return;
	if (zbar) { /* the sums zeroed in this kernel (gq_wg_tma_zero): seen by the producer */
		gq_wg_bar_wait(zbar, 0);
		asm volatile("fence.proxy.async.global;" ::: "memory");
	}
#pragma unroll
	for (int b = 0; b < WN / 32; b++)
		asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"
		             " [%0, {%1, %2}], [%3];" ::"l"(reinterpret_cast<uint64_t>(map_c)),
		             "r"(col + 32 * b), "r"(row), "r"(gq_wg_smem_addr(st + b * 8192))
		             : "memory");
	/* wait for the adds themselves, as first measured, not only until the TMA unit has read the
	 * ring: a build that did (and let every kernel start dependents) was 0.9-1.1 % slower at
	 * 4096x128 FP32 out in one call of the tenth round, though not in the next */
	asm volatile("cp.async.bulk.commit_group;\n"
	             "cp.async.bulk.wait_group 0;" ::
	                 : "memory");
}

/* A stage's own copies (no cluster): A's BM / 64 boxes at column m0 (evict-last: read again by
 * the CTAs of every N tile) and B's BN / 64 at column n0, from row `row`, completing on bar. */
template <int BM>
__device__ __forceinline__ void gq_wg_copy_a(uint32_t a, const CUtensorMap *map_a, int m0,
                                             int32_t row, uint32_t bar, uint64_t keep)
{
#pragma unroll
	for (int c = 0; c < BM / 64; c++)
		gq_wg_tma_load(a + c * GQ_WG_BOX_BYTES, map_a, m0 + 64 * c, row, bar, keep);
}
template <int BN, bool STREAM_B>
__device__ __forceinline__ void gq_wg_copy_b(uint32_t b, const CUtensorMap *map_b, int n0,
                                             int32_t row, uint32_t bar, uint64_t stream)
{
#pragma unroll
	for (int c = 0; c < BN / 64; c++) {
		if (STREAM_B)
			gq_wg_tma_load_nohint(b + c * GQ_WG_BOX_BYTES, map_b, n0 + 64 * c, row,
			                      bar);
		else
			gq_wg_tma_load(b + c * GQ_WG_BOX_BYTES, map_b, n0 + 64 * c, row, bar,
			               stream);
	}
}

/* The address of the barrier at bar (empty[0]) in each CTA of the cluster (CL of them; with CL =
 * 1 bar itself), mapped once before the consumers' loop: a CTA's window of the cluster's shared
 * memory is contiguous, so a stage's barrier is at the same offset from each. */
template <int CL>
__device__ __forceinline__ void gq_wg_cluster_bars(uint32_t bar, uint32_t (&bars)[CL])
{
#pragma unroll
	for (int r = 0; r < CL; r++) {
		if (CL > 1)
			asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
			             : "=r"(bars[r])
			             : "r"(bar), "r"((uint32_t)r));
		else
			bars[r] = bar;
	}
}

/* A consumer warp has finished reading the stage whose empty barrier lies off bytes past the
 * barriers bars (gq_wg_cluster_bars): its lane 0 arrives on that barrier of every CTA of the
 * cluster (CL of them). The lane's test is a predicate inside the asm, not a branch: a divergent
 * path between a wgmma's issue and its wait makes ptxas wait for the wgmma before it (warning
 * C7518), which would undo the pipelined consumers. */
template <int CL>
__device__ __forceinline__ void gq_wg_release(const uint32_t (&bars)[CL], uint32_t off, int tid)
{
	__syncwarp();
#define GQ_WG_ARRIVE_LANE0(SPACE)                                                                  \
	"{\n.reg .pred p;\nsetp.eq.u32 p, %1, 0;\n@p mbarrier.arrive." SPACE ".b64 _, [%0];\n}\n"
#pragma unroll
	for (int r = 0; r < CL; r++) {
		if (CL > 1)
			asm volatile(GQ_WG_ARRIVE_LANE0("shared::cluster")::"r"(bars[r] + off),
			             "r"(tid & 31)
			             : "memory");
		else
			asm volatile(GQ_WG_ARRIVE_LANE0("shared::cta")::"r"(bars[r] + off),
			             "r"(tid & 31)
			             : "memory");
	}
#undef GQ_WG_ARRIVE_LANE0
}

/* A consumer warpgroup's loop over its nkb K-blocks (see gq_wg_cfg::PIPE): whole rounds of the
 * ring, unrolled, then the rest (fewer than STAGES K-blocks), so that a K-block's stage, barriers
 * and descriptors are fixed offsets from the first stage's (the address field of a descriptor is
 * its low 14 bits, the address over 16: adding to it moves it) and a K-block tests nothing; a
 * chunk starts and ends with a round. acc: the chunk's accumulators, sum: the running sums.
 * full0: the first full barrier; empties: the first empty barrier of every CTA of the cluster;
 * da0, db0: the descriptors' low words of the warpgroup's A and B in stage 0.
 *
 * At d_out 128, where the GEMM runs against the board's power limit (its SMs at 1.3-1.55 GHz),
 * work between one stage's multiplies and the next stage's costs time: about 36 more
 * instructions a K-block and warp there made it 4-7 % slower, and the lean descriptors and
 * barriers (87 instructions a K-block and warp before, about 35 after) made the best split
 * program 0.4-2.4 % faster (fourteenth round of the experiment log of 5e691b9). The
 * loop's own tests and the chunk's adds do not: without them (in the 128×128 kernel about 34
 * instructions a K-block and warp instead of 56) the time was the same (fifteenth round). */
template <int BM, int BN, int CL, int WN>
__device__ __forceinline__ void gq_wg_consume(float (&acc)[WN / 2], float (&sum)[WN / 2], int nkb,
                                              uint32_t full0, const uint32_t (&empties)[CL],
                                              uint32_t da0, uint32_t db0, int tid)
{
	using C = gq_wg_cfg<BM, BN>;
	constexpr int S = C::STAGES;
	/* K-block s of a round waited for, multiplied into acc (overwriting it where it starts a
	 * chunk) and released; with PIPE its multiplies are left running and the stage before it
	 * is released once they are the only ones still running, unless the K-block starts a chunk
	 * (the chunk's end drained them and released its last stage). */
	auto kblock = [&](int s, uint32_t parity, int first) {
		gq_wg_bar_wait(full0 + 8 * s, parity);
		const uint32_t step = (uint32_t)(s * C::STAGE_BYTES) >> 4;
		if (C::PIPE) {
			gq_wg_issue_stage<WN>(acc, da0 + step, db0 + step, first);
			if (!first) {
				gq_wg_wait_one();
				gq_wg_release<CL>(empties, 8 * ((s + S - 1) % S), tid);
			}
		} else {
			gq_wg_multiply_stage<WN>(acc, da0 + step, db0 + step, first);
			gq_wg_release<CL>(empties, 8 * s, tid);
		}
	};
	/* A chunk's end, its last K-block in stage s: acc added into the sums, with PIPE once its
	 * multiplies have finished and then that stage released. */
	auto close = [&](int s) {
		if (C::PIPE) {
			gq_wg_drain<WN>(acc);
			gq_wg_release<CL>(empties, 8 * s, tid);
		}
#pragma unroll
		for (int j = 0; j < WN / 2; j++)
			sum[j] = __fadd_rn(sum[j], acc[j]);
	};
	const int rounds = nkb / S, rest = nkb % S;
	uint32_t parity = 0;
	int c = 0; /* rounds of the open chunk done */
	for (int r = 0; r < rounds; r++, parity ^= 1) {
		const int fresh = c == 0;
#pragma unroll
		for (int s = 0; s < S; s++)
			kblock(s, parity, s == 0 && fresh);
		if (++c == C::CHUNK_ROUNDS) {
			c = 0;
			close(S - 1);
		}
	}
#pragma unroll
	for (int s = 0; s < S - 1; s++) {
		if (s >= rest)
			break;
		kblock(s, parity, s == 0 && c == 0);
	}
	if (c != 0 || rest > 0) /* the last chunk, shorter */
		close(rest > 0 ? rest - 1 : S - 1);
}

/* A consumer warpgroup's 64 × WN sums stored from the registers (the accumulator layout of the
 * epilogue below; row0, col0: this thread's first row and column): to slice (FP32) with to_slice,
 * else to out, FP32 or rounded to BF16; row-major with leading dimension ld, only rows below rows
 * and columns below cols. */
template <int WN>
__device__ __forceinline__ void
gq_wg_store_sums(const float (&sum)[WN / 2], bool to_slice, float *slice, void *out, int out_fp32,
                 int64_t ld, int64_t row0, int64_t col0, int64_t rows, int64_t cols)
{
#pragma unroll
	for (int j = 0; j < WN / 2; j += 2) {
		const int64_t row = row0 + 8 * ((j >> 1) & 1), col = col0 + 8 * (j >> 2);
		/* N is a multiple of 8: col < N means col + 1 < N */
		if (row >= rows || col >= cols)
			continue;
		const int64_t at = row * ld + col;
		const float2 v = make_float2(sum[j], sum[j + 1]);
		if (to_slice) {
			*reinterpret_cast<float2 *>(slice + at) = v;
		} else if (out_fp32) {
			*reinterpret_cast<float2 *>(static_cast<float *>(out) + at) = v;
		} else {
			*reinterpret_cast<__nv_bfloat162 *>(static_cast<__nv_bfloat16 *>(out) +
			                                    at) = __floats2bfloat162_rn(v.x, v.y);
		}
	}
}

/* The ring before the first copy: with M < 64 the columns of A's boxes past a_box zeroed in
 * every stage (A's box fills the first a_box columns of each row; the rows of the tile past M
 * then multiply zeros, not stale shared memory), and the barriers initialized: full[s] for the
 * producer's one arrive, empty[s] for every consumer warp of the CL CTAs of the cluster. */
template <int BM, int BN, int CL>
__device__ __forceinline__ void gq_wg_ring_init(unsigned char *smem, uint64_t *full,
                                                uint64_t *empty, int a_box, int tid)
{
	using C = gq_wg_cfg<BM, BN>;
	if (BM == 64 && a_box < 64 && tid < C::CONSUMERS * 128) {
		const uint4 zero = make_uint4(0, 0, 0, 0);
		for (int q = tid; q < C::STAGES * (C::A_BYTES / 16); q += C::CONSUMERS * 128)
			*reinterpret_cast<uint4 *>(
			    smem + (size_t)(q / (C::A_BYTES / 16)) * C::STAGE_BYTES +
			    (size_t)(q % (C::A_BYTES / 16)) * 16) = zero;
		asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
	}
	if (tid == 0) {
		for (int s = 0; s < C::STAGES; s++) {
			gq_wg_bar_init(&full[s], 1);
			gq_wg_bar_init(&empty[s], C::CONSUMERS * 4 * CL);
		}
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
		asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
	}
}

/* Split 0's producer zeroes its tile (m0, n0) of the sums (zero_in_kernel): it zeroes the 8 KiB
 * at z (a box of the sums' map: 64 rows × 32 FP32 columns, 1024-byte aligned, in a stage of the
 * ring that only this CTA's copies fill) and has the TMA unit store that box over the tile (boxes
 * past the sums clipped), then waits until the unit has read it, as the stage is filled next. The
 * stores' completion is waited for after the producer's loop. Split 0's consumers, which used
 * to zero the sums themselves (stores and a fence before their first multiply), start at once:
 * 1.1-1.8 µs faster at 4096x128 and −0.5 to +1.0 µs at 5120x128, T = 65471 and 65537
 * (thirtieth round of the experiment log of 5e691b9). */
template <int BM, int BN>
__device__ __forceinline__ void gq_wg_tma_zero(const CUtensorMap *map_c, unsigned char *z, int m0,
                                               int n0)
{
	const uint4 zero = make_uint4(0, 0, 0, 0);
	for (int q = 0; q < GQ_WG_BOX_BYTES / 16; q++)
		reinterpret_cast<uint4 *>(z)[q] = zero;
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
	for (int r = 0; r < BM / 64; r++)
		for (int b = 0; b < BN / 32; b++)
			asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"
			             " [%0, {%1, %2}], [%3];" ::"l"(reinterpret_cast<uint64_t>(map_c)),
			             "r"(n0 + 32 * b), "r"(m0 + 64 * r), "r"(gq_wg_smem_addr(z))
			             : "memory");
	asm volatile("cp.async.bulk.commit_group;\n"
	             "cp.async.bulk.wait_group.read 0;" ::
	                 : "memory");
}

/* The N tile (ty) and split (tz) of this CTA: its cluster's place in the launch order, or the
 * work gq_wg_cluster_order gives that place (p.order_n > 0) */
__device__ __forceinline__ void gq_wg_tile_of(const gq_wg_params &p, int &ty, int &tz)
{
	ty = blockIdx.y, tz = blockIdx.z;
	if (p.order_n) {
		const int L = p.order[ty + (int)gridDim.y * tz];
		ty = L % (int)gridDim.y, tz = L / (int)gridDim.y;
	}
}

/* Consumer warpgroup wg of gq_wg_kernel, WN columns wide: rows [64·wm, 64·wm + 64) and the WN
 * columns from col = C::WN·wn of the CTA's tile (m0, n0) (wm = wg / C::WG_N, wn = wg % C::WG_N;
 * every warpgroup but the 64×320 tile's last is C::WN wide), over its nkb K-blocks, then its
 * sums added (GQ_MMA_ATOMIC, staged in the ring wg·64·C::WN·4 bytes in: past the warpgroups
 * before it) or stored. */
template <int BM, int BN, int CL, int WN>
__device__ __forceinline__ void gq_wg_consumer(const CUtensorMap *map_c, const gq_wg_params &p,
                                               unsigned char *smem, uint64_t *full,
                                               uint64_t *empty, uint64_t *zbar, int nkb, int m0,
                                               int n0, int wg, int tid)
{
	using C = gq_wg_cfg<BM, BN>;
	const int wm = wg / C::WG_N, col = C::WN * (wg % C::WG_N);
	const size_t st_off = (size_t)wg * 64 * C::WN * 4;
	float acc[WN / 2], sum[WN / 2];
#pragma unroll
	for (int i = 0; i < WN / 2; i++)
		acc[i] = 0.f, sum[i] = 0.f;

	const uint32_t full0 = gq_wg_smem_addr(full);
	uint32_t empties[CL];
	gq_wg_cluster_bars<CL>(gq_wg_smem_addr(empty), empties);
	const uint32_t da0 = gq_wg_desc_lo(gq_wg_smem_addr(smem + wm * GQ_WG_BOX_BYTES));
	const uint32_t db0 =
	    gq_wg_desc_lo(gq_wg_smem_addr(smem + C::A_BYTES + (col / 64) * GQ_WG_BOX_BYTES));
	gq_wg_consume<BM, BN, CL, WN>(acc, sum, nkb, full0, empties, da0, db0, tid);

	/* Epilogue. Accumulator j of lane l in warp w (of the warpgroup) is row 16w + l/4 + 8·((j/2)
	 * % 2), column 8·(j/4) + 2·(l % 4) + j % 2: pairs (j, j + 1) are adjacent columns. */
	const int warp = (tid % 128) / 32, lane = tid & 31;
	const int64_t row0 = (int64_t)m0 + 64 * wm + 16 * warp + lane / 4;
	const int64_t col0 = (int64_t)n0 + col + 2 * (lane % 4);
	if (p.mode == GQ_MMA_ATOMIC) {
		gq_wg_reduce_tile<WN, C::CONSUMERS * 128>(map_c, smem, wg, st_off, sum, n0 + col,
		                                          m0 + 64 * wm,
		                                          p.zero_in_kernel ? gq_wg_smem_addr(zbar)
		                                                           : 0u);
		return;
	}
	int ty, tz;
	gq_wg_tile_of(p, ty, tz);
	gq_wg_store_sums<WN>(sum, p.mode == GQ_MMA_SLICES, p.ws + (int64_t)tz * p.m * p.n,
	                     p.out, p.out_fp32, p.n, row0, col0, p.m, p.n);
}

/* STREAM_B: B's copies carry no L2 hint (p.b_stream; compiled for the BM = 64 tiles and the
 * shared copies only, so that the others keep the producer loop they had). SHARE, CL: the
 * shared copies (p.share, p.cluster; gemm_wgmma.h), CL CTAs per cluster. */
template <int BM, int BN, bool STREAM_B, int SHARE = GQ_WG_SHARE_NONE, int CL = 1>
__global__ void __launch_bounds__(gq_wg_cfg<BM, BN>::THREADS, gq_wg_cfg<BM, BN>::CTAS_PER_SM)
    gq_wg_kernel(const __grid_constant__ CUtensorMap map_a,
                 const __grid_constant__ CUtensorMap map_b,
                 const __grid_constant__ CUtensorMap map_c, const gq_wg_params p)
{
	using C = gq_wg_cfg<BM, BN>;
	static_assert((SHARE == GQ_WG_SHARE_NONE && CL == 1) ||
	                  (SHARE == GQ_WG_SHARE_G && BM == 128 && BN == 128 && (CL == 2 || CL == 4)) ||
	                  (SHARE == GQ_WG_SHARE_X && BM == 64 && (BN == 256 || BN == 320) &&
	                   CL == 2),
	              "the shared copies compiled");
	extern __shared__ unsigned char gq_wg_smem_raw[];
	__shared__ __align__(8) uint64_t full[C::STAGES], empty[C::STAGES], zbar;
	unsigned char *smem = reinterpret_cast<unsigned char *>(
	    (reinterpret_cast<uintptr_t>(gq_wg_smem_raw) + 1023) & ~(uintptr_t)1023);

	const int tid = threadIdx.x;
	if (tid == 0 && p.zero_in_kernel) /* completes once the tile's sums are zeroed */
		gq_wg_bar_init(&zbar, 1);
	/* the programmatic dependent of BF16 out (the rounding of gq_mma_reduce_launch) may start
	 * now: it waits for this grid. Only there: with FP32 out, a kernel that let dependents start
	 * without having one was 0.2-0.3 % slower at 4096x128 (tenth round, call 3). */
	if (p.mode == GQ_MMA_ATOMIC && !p.out_fp32)
		asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
	int ty, tz;
	gq_wg_tile_of(p, ty, tz);
	const int64_t kblocks = (p.k + GQ_WG_BK - 1) / GQ_WG_BK;
	const int64_t kb0 = (int64_t)tz * p.kb_per_split;
	int64_t nkb = kblocks - kb0;
	if (nkb > p.kb_per_split)
		nkb = p.kb_per_split;
	if (nkb < 0)
		nkb = 0;
	const int m0 = blockIdx.x * BM, n0 = ty * BN;

	const int a_box = gq_wg_a_box(p.m);
	gq_wg_ring_init<BM, BN, CL>(smem, full, empty, a_box, tid);
	if (CL > 1) /* every CTA's barriers ready before any copy or arrive of another */
		gq_wg_cluster_sync();
	else
		__syncthreads();

	/* the producer warp; the test on a value the compiler knows to be the same across the warp
	 * (broadcast from lane 0), so that the consumers' code is no divergent path to ptxas (see
	 * gq_wg_release) */
	if (__shfl_sync(0xffffffffu, tid / 32, 0) >= C::CONSUMERS * 4) {
		if (C::PRODUCER_THREADS == 128)
			asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(C::PRODUCER_REGS));
		if (tid == C::CONSUMERS * 128) {
			const uint64_t keep = gq_wg_policy_evict_last(), stream = gq_wg_policy_evict_first();
			const uint32_t tx = C::STAGE_BYTES - (64 - a_box) * GQ_WG_BK * 2; /* one A box */
			/* shared addresses and the stage's round kept as running values: the loop
			 * issues nothing but the wait, the expectation and the copies */
			const uint32_t full0 = gq_wg_smem_addr(full), empty0 = gq_wg_smem_addr(empty);
			const uint32_t ring0 = gq_wg_smem_addr(smem);
			const uint32_t rank = CL > 1 ? gq_wg_cluster_rank() : 0;
			int s = 0;
			uint32_t parity = 0; /* of the round before: the consumers' release */
			int32_t row = (int32_t)(kb0 * GQ_WG_BK);
			/* in-kernel zeroing: which launch this is, from the splits' start count (each
			 * launch adds gridDim.z − 1 to it); split 0 zeroes from the box of the stage
			 * it fills last in the first round (the box this CTA copies itself: x's with
			 * GQ_WG_SHARE_G, g's otherwise) */
			unsigned long long *const zs = reinterpret_cast<unsigned long long *>(p.zsync);
			const int64_t tile = (int64_t)ty * gridDim.x + blockIdx.x;
			unsigned long long launch = 0;
			if (p.zero_in_kernel && tz > 0)
				launch = atomicAdd(zs + tile, 1ULL) / (gridDim.z - 1);
			const int zero_at = p.zero_in_kernel && tz == 0
			                        ? (int)min(nkb, (int64_t)C::STAGES) - 1
			                        : -1;
			constexpr int ZERO_OFF = SHARE == GQ_WG_SHARE_G ? C::A_BYTES : 0;
			for (int i = 0; i < (int)nkb; i++) {
				if (i >= C::STAGES)
					gq_wg_bar_wait(empty0 + 8 * s, parity);
				const uint32_t bar = full0 + 8 * s;
				const uint32_t a = ring0 + (uint32_t)s * C::STAGE_BYTES;
				const uint32_t b = a + C::A_BYTES;
				if (i == zero_at)
					gq_wg_tma_zero<BM, BN>(&map_c,
					                       smem + (size_t)s * C::STAGE_BYTES + ZERO_OFF,
					                       m0, n0);
				gq_wg_bar_expect_tx(bar, tx);
				/* x's copies first, then g's, as cuBLASLt's nvjet kernels issue them: x
				 * comes from HBM, g mostly from the L2 (every N tile reads it). At
				 * 5120x128, T >= 65471 the best split took 0.2-1.7 µs less on three H200s,
				 * elsewhere the same (thirty-fourth round of
				 * the experiment log of 5e691b9) */
				if (SHARE == GQ_WG_SHARE_X) { /* rank 0 the first half of x's boxes
								* (rounded up), rank 1 the rest */
					constexpr int NB = BN / 64, H = (NB + 1) / 2;
#pragma unroll
					for (int c = rank ? H : 0; c < (rank ? NB : H); c++)
						gq_wg_tma_load_mc_nohint(b + c * GQ_WG_BOX_BYTES, &map_b,
						                         n0 + 64 * c, row, bar, (uint16_t)3);
				} else {
					gq_wg_copy_b<BN, STREAM_B>(b, &map_b, n0, row, bar, stream);
				}
				if (SHARE == GQ_WG_SHARE_G && CL == 2) { /* box r of g from rank r */
					gq_wg_tma_load_mc(a + rank * GQ_WG_BOX_BYTES, &map_a,
					                  m0 + 64 * (int)rank, row, bar, (uint16_t)3, keep);
				} else if (SHARE == GQ_WG_SHARE_G) { /* half r % 2 of box r / 2 */
					const uint32_t c = rank >> 1, h = rank & 1;
					gq_wg_tma_load_mc(a + c * GQ_WG_BOX_BYTES + h * (GQ_WG_BOX_BYTES / 2),
					                  &map_a, m0 + 64 * (int)c, row + (GQ_WG_BK / 2) * (int)h,
					                  bar, (uint16_t)15, keep);
				} else {
					gq_wg_copy_a<BM>(a, &map_a, m0, row, bar, keep);
				}
				row += GQ_WG_BK;
				gq_wg_next_stage<C::STAGES>(s, parity, i >= C::STAGES);
			}
			if (p.zero_in_kernel) { /* split 0 has zeroed this launch's sums */
				unsigned long long *const zeroed =
				    zs + (int64_t)gridDim.x * gridDim.y + tile;
				if (tz == 0) { /* the stores done, then counted */
					if (nkb < 1)
						gq_wg_tma_zero<BM, BN>(&map_c, smem + ZERO_OFF, m0, n0);
					asm volatile("cp.async.bulk.wait_group 0;\n"
					             "fence.proxy.async.global;\n"
					             "red.release.gpu.global.add.u64 [%0], 1;" ::"l"(zeroed)
					             : "memory");
				}
				for (unsigned long long v = 0; tz > 0;) {
					asm volatile("ld.acquire.gpu.global.u64 %0, [%1];"
					             : "=l"(v)
					             : "l"(zeroed)
					             : "memory");
					if (v > launch)
						break;
					__nanosleep(64);
				}
				asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(
				                 gq_wg_smem_addr(&zbar))
				             : "memory");
			}
			/* in a cluster, stay until every CTA's consumers have released this one's last
			 * stages: no arrive of another CTA may reach it after it has left (the same
			 * waits the loop would make for K-blocks nkb … nkb + STAGES − 1) */
			for (int i = (int)nkb; CL > 1 && i < (int)nkb + C::STAGES; i++) {
				if (i >= C::STAGES)
					gq_wg_bar_wait(empty0 + 8 * s, parity);
				gq_wg_next_stage<C::STAGES>(s, parity, i >= C::STAGES);
			}
		}
		return;
	}

	/* consumer warpgroup wg (gq_wg_consumer has its rows and columns), the last one WN_LAST
	 * wide (wg from lane 0: a value the compiler knows to be the same across the warp, so that
	 * the descriptors and barrier addresses derived from it can live in uniform registers) */
	const int wg = __shfl_sync(0xffffffffu, tid / 128, 0);
	if (C::PRODUCER_THREADS == 128)
		asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(C::CONSUMER_REGS));
	if (C::WN_LAST != C::WN && wg == C::CONSUMERS - 1)
		gq_wg_consumer<BM, BN, CL, C::WN_LAST>(&map_c, p, smem, full, empty, &zbar, (int)nkb,
		                                       m0, n0, wg, tid);
	else
		gq_wg_consumer<BM, BN, CL, C::WN>(&map_c, p, smem, full, empty, &zbar, (int)nkb, m0,
		                                  n0, wg, tid);
}

/* gemmq:streamk (GQ_MMA_STREAMK with gemm_mma.h's geometry in K-blocks of GQ_WG_BK rows:
 * q.k_tiles is the K-blocks, q.sk_total the tiles times them; with q.sk_groups > 1, once per M
 * tile, the groups' CTAs side by side along the grid's x): CTA g of q.sk_ctas owns iterations
 * [begin(g), begin(g + 1)) of the (tile, K-block) space and takes them a segment (one tile's run
 * of K-blocks) at a time. The producer copies the segments' K-blocks in order through the ring;
 * the consumers multiply them and, at each segment's end, store its sums from the registers: to
 * out where the segment is its tile whole, else to the segment's slot of p.ws (BM × BN FP32,
 * row-major), which gq_mma_streamk_fixup_launch sums in K order. No clusters; STREAM_B as in
 * gq_wg_kernel. */
template <int BM, int BN, bool STREAM_B>
__global__ void __launch_bounds__(gq_wg_cfg<BM, BN>::THREADS, gq_wg_cfg<BM, BN>::CTAS_PER_SM)
    gq_wg_sk_kernel(const __grid_constant__ CUtensorMap map_a,
                    const __grid_constant__ CUtensorMap map_b, const gq_wg_params p,
                    const gq_mma_params q)
{
	using C = gq_wg_cfg<BM, BN>;
	constexpr int WN = C::WN;
	static_assert(C::WN_LAST == WN, "consumer warpgroups of one width");
	extern __shared__ unsigned char gq_wg_smem_raw[];
	__shared__ __align__(8) uint64_t full[C::STAGES], empty[C::STAGES];
	unsigned char *smem = reinterpret_cast<unsigned char *>(
	    (reinterpret_cast<uintptr_t>(gq_wg_smem_raw) + 1023) & ~(uintptr_t)1023);
	const int tid = threadIdx.x;
	/* CTA g of group z (blockIdx.x: the M tile whose row of tiles the group takes, with
	 * q.sk_groups > 1; else 0), its slots after those of groups 0 … z − 1 */
	const int64_t g = blockIdx.y, begin = gq_mma_sk_begin(&q, g),
	              end = gq_mma_sk_begin(&q, g + 1);
	const int z = (int)blockIdx.x;
	float *const slots = p.ws + gq_mma_sk_group_slot0(&q, z) * BM * BN;
	const int a_box = gq_wg_a_box(p.m);
	gq_wg_ring_init<BM, BN, 1>(smem, full, empty, a_box, tid);
	__syncthreads();

	if (tid >= C::CONSUMERS * 128) { /* the producer warp */
		if (tid == C::CONSUMERS * 128) {
			const uint64_t keep = gq_wg_policy_evict_last(),
			               stream = gq_wg_policy_evict_first();
			const uint32_t tx =
			    C::STAGE_BYTES - (64 - a_box) * GQ_WG_BK * 2; /* one A box */
			const uint32_t full0 = gq_wg_smem_addr(full),
			               empty0 = gq_wg_smem_addr(empty);
			const uint32_t ring0 = gq_wg_smem_addr(smem);
			int s = 0, i = 0;
			uint32_t parity = 0;
			for (int64_t it = begin; it < end;) {
				int64_t tile, kt0, kt1, tm, tn;
				gq_mma_sk_segment(&q, it, end, &tile, &kt0, &kt1);
				gq_mma_tile_coords(&q, tile, &tm, &tn);
				int32_t row = (int32_t)(kt0 * GQ_WG_BK);
				for (int64_t kt = kt0; kt < kt1; kt++, i++) {
					if (i >= C::STAGES)
						gq_wg_bar_wait(empty0 + 8 * s, parity);
					const uint32_t bar = full0 + 8 * s;
					const uint32_t a = ring0 + (uint32_t)s * C::STAGE_BYTES;
					gq_wg_bar_expect_tx(bar, tx);
					gq_wg_copy_a<BM>(a, &map_a, (int)(tm + z) * BM, row, bar, keep);
					gq_wg_copy_b<BN, STREAM_B>(a + C::A_BYTES, &map_b,
					                           (int)tn * BN, row, bar, stream);
					row += GQ_WG_BK;
					gq_wg_next_stage<C::STAGES>(s, parity, i >= C::STAGES);
				}
				it += kt1 - kt0;
			}
		}
		return;
	}

	/* a consumer warpgroup: as in gq_wg_kernel, a segment at a time */
	const int wg = __shfl_sync(0xffffffffu, tid / 128, 0), wm = wg / C::WG_N, wn = wg % C::WG_N;
	const int warp = (tid % 128) / 32, lane = tid & 31;
	const int r0 = 64 * wm + 16 * warp + lane / 4,
	          c0 = WN * wn + 2 * (lane % 4); /* in the tile */
	float acc[WN / 2], sum[WN / 2];
#pragma unroll
	for (int j = 0; j < WN / 2; j++)
		acc[j] = 0.f;
	const uint32_t full0 = gq_wg_smem_addr(full);
	const uint32_t empties[1] = {gq_wg_smem_addr(empty)};
	const uint32_t da0 = gq_wg_desc_lo(gq_wg_smem_addr(smem + wm * GQ_WG_BOX_BYTES));
	const uint32_t db0 =
	    gq_wg_desc_lo(gq_wg_smem_addr(smem + C::A_BYTES + (wn * WN / 64) * GQ_WG_BOX_BYTES));
	int s = 0;
	uint32_t parity = 0;
	for (int64_t it = begin; it < end;) {
		int64_t tile, kt0, kt1, tm, tn;
		gq_mma_sk_segment(&q, it, end, &tile, &kt0, &kt1);
		gq_mma_tile_coords(&q, tile, &tm, &tn);
		const int nk = (int)(kt1 - kt0);
#pragma unroll
		for (int j = 0; j < WN / 2; j++)
			sum[j] = 0.f;
		for (int k = 0; k < nk; k++) {
			gq_wg_bar_wait(full0 + 8 * s, parity);
			const uint32_t step = (uint32_t)(s * C::STAGE_BYTES) >> 4;
			gq_wg_multiply_stage<WN>(acc, da0 + step, db0 + step,
			                         (k % GQ_WG_CHUNK_KBLOCKS) == 0);
			gq_wg_release<1>(empties, 8 * s, tid);
			gq_wg_next_stage<C::STAGES>(s, parity, true);
			if ((k % GQ_WG_CHUNK_KBLOCKS) == GQ_WG_CHUNK_KBLOCKS - 1 || k == nk - 1) {
#pragma unroll
				for (int j = 0; j < WN / 2; j++)
					sum[j] = __fadd_rn(sum[j], acc[j]);
			}
		}
		const int64_t slot = gq_mma_sk_slot(&q, g, it, kt0, kt1);
		if (slot < 0)
			gq_wg_store_sums<WN>(sum, false, NULL, p.out, p.out_fp32, p.n,
			                     (tm + z) * BM + r0, tn * BN + c0, p.m, p.n);
		else
			gq_wg_store_sums<WN>(sum, true, slots + slot * BM * BN, NULL, 1, BN, r0, c0,
			                     BM, BN);
		it += nk;
	}
}

typedef struct gq_wg_entry {
	int bm, bn, threads;
	size_t smem;
	const void *func, *func_stream;  /* func_stream: STREAM_B, NULL where not compiled */
	int share;                       /* the tile's gq_wg_share_mode, NONE for the others */
	const void *func_cl2, *func_cl4; /* its shared copies in clusters of 2 and 4 (or NULL) */
	const void *func_sk, *func_sk_stream; /* gq_wg_sk_kernel, and with STREAM_B (BM = 64) */
} gq_wg_entry;

#define GQ_WG_FUNC(...) reinterpret_cast<const void *>(&gq_wg_kernel<__VA_ARGS__>)
#define GQ_WG_SK(...)   reinterpret_cast<const void *>(&gq_wg_sk_kernel<__VA_ARGS__>)
/* A tile with its stream-K instances SK, SK_STREAM (NULL where not compiled) */
#define GQ_WG_ENTRY_SK(BM, BN, SHARE, CL2, CL4, SK, SK_STREAM)                                     \
	{                                                                                          \
		BM, BN, gq_wg_cfg<BM, BN>::THREADS, gq_wg_cfg<BM, BN>::SMEM,                       \
		    GQ_WG_FUNC(BM, BN, false), BM == 64 ? GQ_WG_FUNC(64, BN, true) : NULL, SHARE,  \
		    CL2, CL4, SK, SK_STREAM                                                        \
	}
#define GQ_WG_ENTRY(BM, BN, SHARE, CL2, CL4)                                                       \
	GQ_WG_ENTRY_SK(BM, BN, SHARE, CL2, CL4, GQ_WG_SK(BM, BN, false),                           \
	               BM == 64 ? GQ_WG_SK(64, BN, true) : NULL)

static const gq_wg_entry *gq_wg_find(int bm, int bn)
{
	static const gq_wg_entry table[] = {
	    GQ_WG_ENTRY(64, 64, GQ_WG_SHARE_NONE, NULL, NULL),
	    GQ_WG_ENTRY(64, 128, GQ_WG_SHARE_NONE, NULL, NULL),
	    GQ_WG_ENTRY(64, 256, GQ_WG_SHARE_X, GQ_WG_FUNC(64, 256, true, GQ_WG_SHARE_X, 2), NULL),
	    /* gemmq:split only: no stream-K instance */
	    GQ_WG_ENTRY_SK(64, 320, GQ_WG_SHARE_X, GQ_WG_FUNC(64, 320, true, GQ_WG_SHARE_X, 2), NULL,
	                   NULL, NULL),
	    GQ_WG_ENTRY(128, 64, GQ_WG_SHARE_NONE, NULL, NULL),
	    GQ_WG_ENTRY(128, 128, GQ_WG_SHARE_G, GQ_WG_FUNC(128, 128, true, GQ_WG_SHARE_G, 2),
	                GQ_WG_FUNC(128, 128, true, GQ_WG_SHARE_G, 4))};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].bm == bm && table[i].bn == bn)
			return &table[i];
	return NULL;
}

extern "C" int gq_wg_tile_supported(int bm, int bn)
{
	return gq_wg_find(bm, bn) != NULL;
}

extern "C" cudaError_t gq_wg_setup(int bm, int bn, int *threads, size_t *smem_bytes,
                                   int *ctas_per_sm)
{
	const gq_wg_entry *k = gq_wg_find(bm, bn);
	if (!k)
		return cudaErrorInvalidValue;
	cudaError_t e =
	    cudaFuncSetAttribute(k->func, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)k->smem);
	const void *more[] = {k->func_stream, k->func_cl2, k->func_cl4, k->func_sk,
	                      k->func_sk_stream};
	for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++)
		if (e == cudaSuccess && more[i])
			e = cudaFuncSetAttribute(more[i], cudaFuncAttributeMaxDynamicSharedMemorySize,
			                         (int)k->smem);
	if (e != cudaSuccess)
		return e;
	*threads = k->threads;
	*smem_bytes = k->smem;
	return cudaOccupancyMaxActiveBlocksPerMultiprocessor(ctas_per_sm, k->func, k->threads,
	                                                     k->smem);
}

static dim3 gq_wg_grid(const gq_wg_params *p)
{
	return dim3((unsigned)((p->m + p->bm - 1) / p->bm), (unsigned)((p->n + p->bn - 1) / p->bn),
	            (unsigned)p->splits);
}

/* The grid's extent along the clusters' axis: the N tiles (y) where they share g, the M tiles
 * (x) where they share x. */
static unsigned gq_wg_along(const gq_wg_params *p, dim3 grid)
{
	return p->share == GQ_WG_SHARE_G ? grid.y : grid.x;
}

/* The launch configuration of p's kernel, in clusters of cl CTAs along the shared dimension, or
 * without clusters for cl = 1 (attr: the caller's storage for the attributes; the cluster
 * dimension is the first, where there is one). */
static cudaLaunchConfig_t gq_wg_config(const gq_wg_params *p, const gq_wg_entry *k, int cl,
                                       cudaLaunchAttribute *attr, cudaStream_t stream)
{
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = gq_wg_grid(p);
	cfg.blockDim = dim3((unsigned)k->threads);
	cfg.dynamicSmemBytes = k->smem;
	cfg.stream = stream;
	cfg.attrs = attr;
	if (cl > 1) {
		attr->id = cudaLaunchAttributeClusterDimension;
		attr->val.clusterDim.x = k->share == GQ_WG_SHARE_X ? (unsigned)cl : 1;
		attr->val.clusterDim.y = k->share == GQ_WG_SHARE_G ? (unsigned)cl : 1;
		attr->val.clusterDim.z = 1;
		cfg.numAttrs = 1;
	}
	return cfg;
}

extern "C" cudaError_t gq_wg_cluster_for(gq_wg_params *p)
{
	const gq_wg_entry *k = gq_wg_find(p->bm, p->bn);
	const int sizes[] = {4, 2};
	p->cluster = 1;
	if (!k || p->share == GQ_WG_SHARE_NONE || p->share != k->share) {
		p->share = GQ_WG_SHARE_NONE;
		return cudaSuccess;
	}
	const dim3 grid = gq_wg_grid(p);
	const unsigned along = gq_wg_along(p, grid);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		const int cl = sizes[i];
		const void *func = cl == 4 ? k->func_cl4 : k->func_cl2;
		if (!func || along % (unsigned)cl)
			continue;
		cudaLaunchAttribute attr;
		cudaLaunchConfig_t cfg = gq_wg_config(p, k, cl, &attr, 0);
		int clusters = 0;
		cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, func, &cfg);
		if (e != cudaSuccess)
			return e;
		if ((int64_t)clusters * cl >= (int64_t)grid.x * grid.y * grid.z) {
			p->cluster = cl;
			return cudaSuccess;
		}
	}
	p->share = GQ_WG_SHARE_NONE; /* no cluster fits the grid in one wave */
	return cudaSuccess;
}

/* cuTensorMapEncodeTiled from the driver, looked up once (the runtime is linked statically and
 * the driver library is not linked at all). */
static PFN_cuTensorMapEncodeTiled_v12000 gq_wg_encoder(void)
{
	static PFN_cuTensorMapEncodeTiled_v12000 fn = NULL;
	if (!fn) {
		void *f = NULL;
		cudaDriverEntryPointQueryResult q;
		if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000,
		                                     cudaEnableDefault, &q) == cudaSuccess &&
		    q == cudaDriverEntryPointSuccess)
			fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
	}
	return fn;
}

/* A [rows × cols] row-major BF16 tensor in boxes of [box_rows × box_cols columns] (each box
 * row lands in a 128-byte row of the stage); a miss brings its whole 128-byte line into L2 (256
 * bytes were slower at T ≤ 16384; gemm_wgmma.h), or only the sectors asked for when stream is
 * set. */
static CUresult gq_wg_encode_one(PFN_cuTensorMapEncodeTiled_v12000 enc, CUtensorMap *map,
                                 const void *base, int64_t rows, int64_t cols, int box_cols,
                                 int box_rows, int stream)
{
	cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
	cuuint64_t strides[1] = {(cuuint64_t)cols * 2};
	cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
	cuuint32_t elem[2] = {1, 1};
	return enc(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void *>(base), dims, strides,
	           box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
	           stream ? CU_TENSOR_MAP_L2_PROMOTION_NONE : CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
	           CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

/* The FP32 sums [rows × cols] of GQ_MMA_ATOMIC in the boxes gq_wg_reduce_tile adds: 64 rows ×
 * 32 columns (128 bytes), 128-byte swizzle. Rows and columns past the tensor are not written. */
static CUresult gq_wg_encode_sums(PFN_cuTensorMapEncodeTiled_v12000 enc, CUtensorMap *map,
                                  const void *base, int64_t rows, int64_t cols)
{
	cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
	cuuint64_t strides[1] = {(cuuint64_t)cols * 4};
	cuuint32_t box[2] = {32, 64};
	cuuint32_t elem[2] = {1, 1};
	return enc(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<void *>(base), dims, strides,
	           box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
	           CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

static_assert(sizeof(CUtensorMap) == GQ_WG_TENSOR_MAP_SIZE, "CUtensorMap is 128 bytes");

extern "C" cudaError_t gq_wg_encode(const gq_wg_params *p, gq_wg_maps *maps, const char **why)
{
	const void *sums = p->mode == GQ_MMA_ATOMIC ? p->ws : NULL;
	if (maps->for_a == p->a && maps->for_b == p->b && maps->for_c == sums &&
	    maps->m == p->m && maps->n == p->n &&
	    maps->k == p->k && maps->bm == p->bm && maps->bn == p->bn &&
	    maps->b_stream == p->b_stream && maps->a_rows == gq_wg_a_rows(p->share, p->cluster))
		return cudaSuccess;
	PFN_cuTensorMapEncodeTiled_v12000 enc = gq_wg_encoder();
	if (!enc) {
		*why = "the driver has no cuTensorMapEncodeTiled";
		return cudaErrorInvalidValue;
	}
	maps->for_a = maps->for_b = maps->for_c = NULL;
	const int a_rows = gq_wg_a_rows(p->share, p->cluster);
	if (gq_wg_encode_one(enc, reinterpret_cast<CUtensorMap *>(maps->a), p->a, p->k, p->m,
	                     gq_wg_a_box(p->m), a_rows, 0) != CUDA_SUCCESS) {
		*why = "cuTensorMapEncodeTiled refused the map of A (g)";
		return cudaErrorInvalidValue;
	}
	if (gq_wg_encode_one(enc, reinterpret_cast<CUtensorMap *>(maps->b), p->b, p->k, p->n, 64,
	                     GQ_WG_BK, p->b_stream) != CUDA_SUCCESS) {
		*why = "cuTensorMapEncodeTiled refused the map of B (x)";
		return cudaErrorInvalidValue;
	}
	memset(maps->c, 0, sizeof(maps->c));
	if (sums && gq_wg_encode_sums(enc, reinterpret_cast<CUtensorMap *>(maps->c), sums, p->m,
	                              p->n) != CUDA_SUCCESS) {
		*why = "cuTensorMapEncodeTiled refused the map of the FP32 sums";
		return cudaErrorInvalidValue;
	}
	maps->for_a = p->a, maps->for_b = p->b, maps->for_c = sums;
	maps->m = p->m, maps->n = p->n, maps->k = p->k;
	maps->bm = p->bm, maps->bn = p->bn;
	maps->b_stream = p->b_stream;
	maps->a_rows = a_rows;
	return cudaSuccess;
}

extern "C" cudaError_t gq_wg_launch(const gq_wg_params *p, const gq_wg_maps *maps,
                                    cudaStream_t stream)
{
	const gq_wg_entry *k = gq_wg_find(p->bm, p->bn);
	if (!k || (gq_wg_a_box(p->m) < 64 && p->bm != 64))
		return cudaErrorInvalidValue;
	const void *func = p->b_stream ? k->func_stream : k->func;
	if (p->share != GQ_WG_SHARE_NONE) /* the shared copies stream x (gemm_wgmma.h) */
		func = p->share != k->share || !p->b_stream ? NULL
		       : p->cluster == 4                     ? k->func_cl4
		       : p->cluster == 2                     ? k->func_cl2
		                                             : NULL;
	if (!func || maps->a_rows != gq_wg_a_rows(p->share, p->cluster))
		return cudaErrorInvalidValue;
	const dim3 grid = gq_wg_grid(p);
	if (p->mode == GQ_MMA_ATOMIC && maps->for_c != p->ws)
		return cudaErrorInvalidValue;
	CUtensorMap map_a, map_b, map_c;
	memcpy(&map_a, maps->a, sizeof(map_a));
	memcpy(&map_b, maps->b, sizeof(map_b));
	memcpy(&map_c, maps->c, sizeof(map_c));
	gq_wg_params params = *p;
	params.order_n = p->share == GQ_WG_SHARE_X && p->cluster == 2
	                     ? gq_wg_cluster_order((int)(grid.y * grid.z), params.order)
	                     : 0;
	void *args[] = {&map_a, &map_b, &map_c, &params};
	if (p->share != GQ_WG_SHARE_NONE && gq_wg_along(p, grid) % (unsigned)p->cluster)
		return cudaErrorInvalidValue;
	cudaLaunchAttribute attrs[2];
	cudaLaunchConfig_t cfg =
	    gq_wg_config(p, k, p->share != GQ_WG_SHARE_NONE ? p->cluster : 1, attrs, stream);
	/* the splits past the first wait for split 0 of their tile (zero_in_kernel): every CTA
	 * resident at once, made sure of by a cooperative launch (refused where it could not be)
	 * rather than assumed from the dispatch order; as fast as the plain launch at the d_out 128
	 * points (thirtieth round of the experiment log of 5e691b9) */
	if (p->zero_in_kernel) {
		attrs[cfg.numAttrs].id = cudaLaunchAttributeCooperative;
		attrs[cfg.numAttrs].val.cooperative = 1;
		cfg.numAttrs++;
	}
	const cudaError_t e = cudaLaunchKernelExC(&cfg, func, args);
	if (e != cudaSuccess)
		return e;
	return cudaGetLastError();
}

extern "C" cudaError_t gq_wg_sk_launch(const gq_wg_params *p, const gq_mma_params *q,
                                       const gq_wg_maps *maps, cudaStream_t stream)
{
	const gq_wg_entry *k = gq_wg_find(p->bm, p->bn);
	if (!k || (gq_wg_a_box(p->m) < 64 && p->bm != 64) || q->sk_ctas < 1 ||
	    q->mode != GQ_MMA_STREAMK || maps->a_rows != GQ_WG_BK)
		return cudaErrorInvalidValue;
	const void *func = p->b_stream ? k->func_sk_stream : k->func_sk;
	if (!func)
		return cudaErrorInvalidValue;
	CUtensorMap map_a, map_b;
	memcpy(&map_a, maps->a, sizeof(map_a));
	memcpy(&map_b, maps->b, sizeof(map_b));
	gq_wg_params params = *p;
	gq_mma_params geometry = *q;
	void *args[] = {&map_a, &map_b, &params, &geometry};
	const cudaError_t e = cudaLaunchKernel(func,
	                                       dim3((unsigned)gq_mma_sk_groups(q), (unsigned)q->sk_ctas),
	                                       dim3((unsigned)k->threads), args, k->smem, stream);
	return e != cudaSuccess ? e : cudaGetLastError();
}
