/* oq.cu: a gemmq plugin with one GPU program, "oq", the split-K wgrad GEMM at d_out 128 whose
 * splits each own a quarter of their tile (fortieth round of ../../wgrad-experiments.md; not part
 * of the build).
 *
 * Every end of the split programs tried so far pays, after the last multiply, the trip of the
 * sums through the L2 (the adds, then for BF16 out a second kernel that reads them back): about
 * 2.4 µs for FP32 out and 4.7 µs for BF16 out at 4096x128. Here the four splits of a 64×256 tile
 * (CTA (mx, c, z): M tile mx, N tile c, split z, in main's clusters of two M tiles sharing x)
 * run main's split over all but the last Q K-blocks (phase 1). Then split z keeps the 64 columns
 * [64z, 64z + 64) of its sums (its quarter) in its registers and adds the other three quarters
 * into an FP32 workspace with atomic FP32 adds, and multiplies the last Q K-blocks for its
 * quarter alone (phase 2: 64×64, two K-blocks a stage, x still shared by the pair). While it
 * does, the other splits' adds into its quarter complete; it then waits for their count (3),
 * reads the quarter's sums from the workspace, adds its own and stores FP32 or BF16 out, and
 * zeroes the quarter of the workspace for the next launch. No memset, no rounding kernel. The
 * sums are added by atomics in no fixed order: a split program, not deterministic.
 *
 * In phase 2 the consumer warpgroup that holds quarter z (wg z / 2, its half z % 2) multiplies;
 * the other warpgroup adds its 128 columns and the owner's other 64 (handed over in shared
 * memory past the ring) by float2 atomics, fences them and counts them (one counter per tile,
 * M tile and quarter). All 128 CTAs must be resident at once (the counts are waited for): 4096
 * columns (16 tiles) or fewer. OQ_Q=Q (environment, at prepare): phase 2's K-blocks, even, 32
 * by default; 0 leaves only the end.
 *
 * The helper's adds are the TMA unit's (boxes staged in the fifth box of the ring's first four
 * stages, which phase 2 leaves empty, and in `hand`). OQ_GO=1 (environment, at prepare) holds
 * phase 2's copies until the helper has issued its adds. A build with -DOQ_TRACE and
 * OQ_TRACE_FILE=PATH appends each CTA's steps in its last launch to PATH.
 *
 * The producer and consumers of phase 1 are kernels/gemm_wgmma.cu's (through ../round28/seg.h),
 * with main's x-first copies, as in ../round39/cl15.cu; the producer's last waits (for the
 * pair's releases) are seg_produce's, and the plugin's functions (encode, prepare, launch,
 * release, the entry point) are cl15.cu's with one grid and a workspace of its own. This file is
 * call 4's source; `patch -o oq-callN.cu oq.cu oq-callN.patch` gives call 3's (no OQ_GO) and
 * calls 1 and 2's (the helper's adds by float2 atomics from the registers, fenced per thread).
 * Correct at every point checked, and at 4096x128, T >= 65471 no faster than
 * gemmq:split:n256:s4 with BF16 out and 1.7-4.6 µs slower with FP32 out (by Q): the round's
 * section of ../../wgrad-experiments.md.
 *
 *   nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC,-fvisibility=hidden \
 *        -gencode arch=compute_90a,code=sm_90a -Ikernels -Iharness \
 *        -o build-exp/oq/liboq.so results/h200/logs/wgrad-experiments/round40/oq.cu \
 *        -lcublasLt -lcuda
 *   build/gemmq bench -p plugin:build-exp/oq/liboq.so:oq -p gemmq:split:n256:s4 PROTOCOL
 */
#include "../../../../../kernels/gemm_wgmma.cu"
#include "../diag.h"
#include "../stream.h"
#include "../round28/seg.h"

#include "gemmq_program.h"

#define OQ_BN 256
#define OQ_STAGE_PAIR_BYTES (4 * GQ_WG_BOX_BYTES) /* phase 2: two K-blocks of g and x */
#define OQ_HAND_BYTES (64 * 64 * 4)               /* the owner's other half, handed over */

struct oq_params {
	void *out; /* [128, n], FP32 or BF16 */
	float *ws; /* [128, n] FP32 sums of the other splits, zero between launches */
	unsigned *counts; /* [tiles][2][4]: adds into quarter q of (tile, M tile) counted */
	int64_t n, k;
	int out_fp32;
	int q; /* phase 2's K-blocks (even) */
	int go; /* the producer starts phase 2 once the helper's adds are issued (OQ_GO=1) */
	unsigned long long *trace; /* -DOQ_TRACE: [CTA][8] %globaltimer at the steps OQ_T names */
};

/* The trace build (-DOQ_TRACE, OQ_TRACE_FILE=PATH at prepare): thread 0 of a warpgroup notes the
 * time of step i of its CTA (i: 0 the kernel's start, 1 phase 1's end, 2 the helper's adds
 * issued, 3 counted, 4 the owner's phase 2 done, 5 the count seen, 6 out stored), and the
 * release appends the last launch's to PATH. */
#ifdef OQ_TRACE
#define OQ_T(p, i)                                                                                 \
	do {                                                                                       \
		if ((p).trace && threadIdx.x % 128 == 0) {                                        \
			unsigned long long t_;                                                     \
			asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t_)::"memory");          \
			(p).trace[(((size_t)blockIdx.z * gridDim.y + blockIdx.y) * 2 + blockIdx.x) * 8 + \
			          (i)] = t_;                                                       \
		}                                                                                  \
	} while (0)
#else
#define OQ_T(p, i) ((void)0)
#endif

/* The producer thread: phase 1 (n1 K-blocks from k1: x's boxes, this CTA's half multicast to
 * the pair, then g's box, as main's), then phase 2 (the last q K-blocks from k2, two a stage:
 * [g kb][x kb][g kb+1][x kb+1], x's box of the quarter's 64 columns from rank mx for K-block
 * mx of the two, multicast), then the waits for the pair's last releases. */
__device__ __forceinline__ void oq_produce(const CUtensorMap *map_a, const CUtensorMap *map_b,
                                           uint64_t *full, uint64_t *empty,
                                           unsigned char *smem, int m0, int mx, int64_t n1,
                                           int64_t k1, int q, int64_t k2, int nB, int z,
                                           uint32_t go)
{
	using C = gq_wg_cfg<64, OQ_BN>;
	const uint64_t keep = gq_wg_policy_evict_last();
	const uint32_t full0 = gq_wg_smem_addr(full), empty0 = gq_wg_smem_addr(empty);
	const uint32_t ring0 = gq_wg_smem_addr(smem);
	int s = 0, i = 0;
	uint32_t parity = 0;
	int32_t row = (int32_t)(k1 * GQ_WG_BK);
	for (int64_t t = 0; t < n1; t++, i++) {
		if (i >= C::STAGES)
			gq_wg_bar_wait(empty0 + 8 * s, parity);
		const uint32_t bar = full0 + 8 * s;
		const uint32_t a = ring0 + (uint32_t)s * C::STAGE_BYTES;
		const uint32_t b = a + C::A_BYTES;
		gq_wg_bar_expect_tx(bar, C::STAGE_BYTES);
		constexpr int NB = OQ_BN / 64, H = NB / 2;
#pragma unroll
		for (int cc = mx ? H : 0; cc < (mx ? NB : H); cc++)
			gq_wg_tma_load_mc_nohint(b + cc * GQ_WG_BOX_BYTES, map_b, nB + 64 * cc, row, bar,
			                         (uint16_t)3);
		gq_wg_copy_a<64>(a, map_a, m0, row, bar, keep);
		row += GQ_WG_BK;
		gq_wg_next_stage<C::STAGES>(s, parity, i >= C::STAGES);
	}
	row = (int32_t)(k2 * GQ_WG_BK);
	if (go)
		gq_wg_bar_wait(go, 0);
	for (int t = 0; t < q; t += 2, i++) {
		if (i >= C::STAGES)
			gq_wg_bar_wait(empty0 + 8 * s, parity);
		const uint32_t bar = full0 + 8 * s;
		const uint32_t a = ring0 + (uint32_t)s * C::STAGE_BYTES;
		gq_wg_bar_expect_tx(bar, OQ_STAGE_PAIR_BYTES);
		gq_wg_tma_load_mc_nohint(a + (1 + 2 * mx) * GQ_WG_BOX_BYTES, map_b, nB + 64 * z,
		                         row + GQ_WG_BK * mx, bar, (uint16_t)3);
		gq_wg_tma_load(a, map_a, m0, row, bar, keep);
		gq_wg_tma_load(a + 2 * GQ_WG_BOX_BYTES, map_a, m0, row + GQ_WG_BK, bar, keep);
		row += 2 * GQ_WG_BK;
		gq_wg_next_stage<C::STAGES>(s, parity, i >= C::STAGES);
	}
	for (int j = i; j < i + C::STAGES; j++) {
		if (j >= C::STAGES)
			gq_wg_bar_wait(empty0 + 8 * s, parity);
		gq_wg_next_stage<C::STAGES>(s, parity, j >= C::STAGES);
	}
}

/* Row and column (in the warpgroup's 64 × WN block) of accumulator pair (j, j + 1) of a thread
 * (gq_wg_consumer's layout). */
__device__ __forceinline__ int oq_row(int tid, int j)
{
	return 16 * ((tid % 128) / 32) + (tid & 31) / 4 + 8 * ((j >> 1) & 1);
}
__device__ __forceinline__ int oq_col(int tid, int j)
{
	return 8 * (j >> 2) + 2 * (tid & 3);
}

/* Phase 2 of the owner warpgroup, its quarter half H of sum: the q K-blocks two a stage from
 * stage s with parity par, each stage's two into acc2 and added to the sums, each stage released
 * twice by each warp (the other warpgroup's releases too). */
template <int H>
__device__ __forceinline__ void oq_phase2(float (&sum)[64], int q, int s, uint32_t parity,
                                          const seg_ring &g, unsigned char *smem, int tid)
{
	using C = gq_wg_cfg<64, OQ_BN>;
	float acc2[32];
	const uint32_t ring_lo = gq_wg_desc_lo(gq_wg_smem_addr(smem));
	for (int t = 0; t < q; t += 2) {
		gq_wg_bar_wait(g.full0 + 8 * s, parity);
		const uint32_t d = ring_lo + (((uint32_t)s * C::STAGE_BYTES) >> 4);
		constexpr uint32_t BOX = GQ_WG_BOX_BYTES >> 4;
		gq_wg_issue_stage<64>(acc2, d, d + BOX, 1);
		gq_wg_issue_stage<64>(acc2, d + 2 * BOX, d + 3 * BOX, 0);
		gq_wg_drain<64>(acc2);
		gq_wg_release<2>(g.empties, 8 * s, tid);
		gq_wg_release<2>(g.empties, 8 * s, tid);
		if (++s == C::STAGES)
			s = 0, parity ^= 1;
#pragma unroll
		for (int j = 0; j < 32; j++)
			sum[32 * H + j] = __fadd_rn(sum[32 * H + j], acc2[j]);
	}
}

/* The owner warpgroup's end, its quarter half H: the other splits' adds into the quarter
 * counted (3), the quarter's sums read, its own added, out stored, the quarter zeroed. */
template <int H>
__device__ __forceinline__ void oq_finish(const float (&sum)[64], const oq_params &p,
                                          unsigned *count, int64_t r0, int64_t c0, int tid)
{
	if (tid % 128 == 0) {
		unsigned seen;
		for (;;) {
			asm volatile("ld.acquire.gpu.global.u32 %0, [%1];"
			             : "=r"(seen)
			             : "l"(count)
			             : "memory");
			if (seen >= 3)
				break;
			__nanosleep(32);
		}
		*count = 0u; /* every add has been counted: none comes before the next launch */
	}
	OQ_T(p, 5);
	asm volatile("bar.sync 3, 128;" ::: "memory");
	float2 w[16];
#pragma unroll
	for (int j = 0; j < 32; j += 2)
		w[j / 2] = __ldcg(reinterpret_cast<const float2 *>(
		    p.ws + (r0 + oq_row(tid, j)) * p.n + c0 + oq_col(tid, j)));
#pragma unroll
	for (int j = 0; j < 32; j += 2) {
		const int64_t at = (r0 + oq_row(tid, j)) * p.n + c0 + oq_col(tid, j);
		const float a = w[j / 2].x + sum[32 * H + j], b = w[j / 2].y + sum[32 * H + j + 1];
		if (p.out_fp32)
			*reinterpret_cast<float2 *>(static_cast<float *>(p.out) + at) = make_float2(a, b);
		else
			*reinterpret_cast<__nv_bfloat162 *>(static_cast<__nv_bfloat16 *>(p.out) + at) =
			    __floats2bfloat162_rn(a, b);
		__stcg(reinterpret_cast<float2 *>(p.ws + at), make_float2(0.f, 0.f));
	}
}

/* Two adjacent sums (row r, columns c and c + 1 of a 64 × W block) into the boxes of 64 rows ×
 * 32 FP32 columns at st, in the layout map_c's 128-byte swizzle reads (gq_wg_reduce_tile's). */
__device__ __forceinline__ void oq_stage2(unsigned char *st, int r, int c, float a, float b)
{
	const int at = (c / 32) * 8192 + r * 128 + ((((c % 32) / 4) ^ (r & 7)) * 16) + (c % 4) * 4;
	*reinterpret_cast<float2 *>(st + at) = make_float2(a, b);
}

/* The owner warpgroup, its quarter half H of sum: the other half handed to the other
 * warpgroup (shared memory past the ring, barrier 2), phase 2, the end. */
template <int H>
__device__ __forceinline__ void oq_owner(float (&sum)[64], const oq_params &p,
                                         unsigned char *hand, unsigned *count, int q, int s2,
                                         uint32_t parity, const seg_ring &g, unsigned char *smem,
                                         int64_t r0, int64_t c0, int tid)
{
#pragma unroll
	for (int j = 0; j < 32; j += 2)
		oq_stage2(hand, oq_row(tid, j), oq_col(tid, j), sum[32 * (1 - H) + j],
		          sum[32 * (1 - H) + j + 1]);
	asm volatile("fence.proxy.async.shared::cta;\n"
	             "bar.arrive 2, 256;" ::: "memory");
	oq_phase2<H>(sum, q, s2, parity, g, smem, tid);
	OQ_T(p, 4);
	oq_finish<H>(sum, p, count, r0, c0, tid);
	OQ_T(p, 6);
}

/* The helper warpgroup: its 128 columns (from c0) staged in the fifth box of the ring's first
 * four stages (phase 2 fills only four), the owner's other half (from oc) in `hand`, all added
 * into the workspace by the TMA unit (boxes of 64 rows × 32 columns through map_c, as main's
 * adds), their completion waited for, then counted for the three quarters not z. */
__device__ __forceinline__ void oq_helper(const float (&sum)[64], const CUtensorMap *map_c,
                                          const oq_params &p, unsigned char *smem,
                                          unsigned char *hand, unsigned *counts, int r0, int c0,
                                          int oc, int z, int tid, uint32_t go)
{
	using C = gq_wg_cfg<64, OQ_BN>;
	asm volatile("bar.sync 2, 256;" ::: "memory"); /* both warpgroups are past phase 1 */
	unsigned char *const slot = smem + C::A_BYTES + 3 * GQ_WG_BOX_BYTES;
#pragma unroll
	for (int j = 0; j < 64; j += 2) {
		const int c = oq_col(tid, j);
		oq_stage2(slot + (c / 32) * C::STAGE_BYTES, oq_row(tid, j), c % 32, sum[j], sum[j + 1]);
	}
	asm volatile("fence.proxy.async.shared::cta;\n"
	             "bar.sync 4, 128;" ::: "memory");
	if (tid % 128 != 0)
		return;
#pragma unroll
	for (int b = 0; b < 6; b++) {
		const unsigned char *from = b < 4 ? slot + b * C::STAGE_BYTES : hand + (b - 4) * 8192;
		const int col = b < 4 ? c0 + 32 * b : oc + 32 * (b - 4);
		asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"
		             " [%0, {%1, %2}], [%3];" ::"l"(reinterpret_cast<uint64_t>(map_c)),
		             "r"(col), "r"(r0), "r"(gq_wg_smem_addr(from))
		             : "memory");
	}
	OQ_T(p, 2);
	asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(go) : "memory");
	asm volatile("cp.async.bulk.commit_group;\n"
	             "cp.async.bulk.wait_group 0;\n"
	             "fence.proxy.async.global;" ::
	                 : "memory");
#pragma unroll
	for (int qq = 0; qq < 4; qq++)
		if (qq != z)
			asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(counts + qq)
			             : "memory");
	OQ_T(p, 3);
}

/* Grid (2, tiles, 4) in clusters of 2 × 1 × 1: CTA (mx, c, z). */
__global__ void __launch_bounds__(gq_wg_cfg<64, OQ_BN>::THREADS, 1)
    oq_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
              const __grid_constant__ CUtensorMap map_c, const oq_params p)
{
	using C = gq_wg_cfg<64, OQ_BN>;
	extern __shared__ unsigned char gq_wg_smem_raw[];
	__shared__ __align__(8) uint64_t full[C::STAGES], empty[C::STAGES], go;
	unsigned char *smem = reinterpret_cast<unsigned char *>(
	    (reinterpret_cast<uintptr_t>(gq_wg_smem_raw) + 1023) & ~(uintptr_t)1023);
	unsigned char *hand = smem + (size_t)C::STAGES * C::STAGE_BYTES;
	const int tid = threadIdx.x, mx = blockIdx.x, c = blockIdx.y, z = blockIdx.z;
	const int64_t kb = (p.k + GQ_WG_BK - 1) / GQ_WG_BK;
	const int q = (int)(p.q < (kb & ~(int64_t)1) ? p.q : (kb & ~(int64_t)1));
	const int64_t kb1 = kb - q; /* phase 1's K-blocks, in quarters */
	const int64_t b0 = z * kb1 / 4, b1 = (z + 1) * kb1 / 4;
	const int m0 = 64 * mx, nB = c * OQ_BN;

	OQ_T(p, 0);
	if (tid == 0)
		gq_wg_bar_init(&go, 1);
	gq_wg_ring_init<64, OQ_BN, 2>(smem, full, empty, 64, tid);
	gq_wg_cluster_sync();

	if (__shfl_sync(0xffffffffu, tid / 32, 0) >= C::CONSUMERS * 4) {
		if (tid == C::CONSUMERS * 128)
			oq_produce(&map_a, &map_b, full, empty, smem, m0, mx, b1 - b0, b0, q, kb1, nB, z,
			           p.go ? gq_wg_smem_addr(&go) : 0u);
		return;
	}
	const int wg = __shfl_sync(0xffffffffu, tid / 128, 0);
	const int col = C::WN * wg;
	float acc[64], sum[64];
#pragma unroll
	for (int i = 0; i < 64; i++)
		sum[i] = 0.f;
	const seg_ring g = seg_ring_of<OQ_BN>(smem, full, empty, col, 0u);
	uint32_t parity = 0;
	seg_consume<OQ_BN, 128>(acc, sum, (int)(b1 - b0), parity, g.full0, g.empties, g.da0, g.db0,
	                        tid);
	/* nothing is in flight (the loop's last chunk is drained); said so, so that ptxas puts no
	 * wait of its own on the paths below, which would serialize every multiply (C7518) */
	gq_wg_wait_all();
	gq_wg_fence_regs(sum);
	OQ_T(p, 1);
	const int s2 = (int)((b1 - b0) % C::STAGES);
	unsigned *const counts = p.counts + ((size_t)c * 2 + mx) * 4;
	const int owner = z / 2, half = z % 2;
	if (wg == owner) { /* the other half to the other warpgroup, then phase 2 and the end */
		if (half == 0)
			oq_owner<0>(sum, p, hand, counts + z, q, s2, parity, g, smem, m0, nB + 64 * z, tid);
		else
			oq_owner<1>(sum, p, hand, counts + z, q, s2, parity, g, smem, m0, nB + 64 * z, tid);
	} else {
		oq_helper(sum, &map_c, p, smem, hand, counts, m0, nB + col,
		          nB + C::WN * owner + 64 * (1 - half), z, tid, gq_wg_smem_addr(&go));
	}
}

/* ---- the plugin ---- */

namespace {

constexpr size_t OQ_SMEM = gq_wg_cfg<64, OQ_BN>::SMEM + OQ_HAND_BYTES;

struct oq_instance {
	gemmq_problem p;
	CUtensorMap map_a, map_b, map_c; /* g, x; the workspace's sums (boxes of 64 × 32) */
	const void *a, *b;
	oq_params prm;
	void *ws;
	cudaLaunchConfig_t cfg;
	cudaLaunchAttribute attr;
};

int fail(char *msg, size_t size, int rc, const char *what, cudaError_t e)
{
	snprintf(msg, size, "oq: %s: %s", what, cudaGetErrorString(e));
	return rc;
}

int encode(oq_instance *in, const void *a, const void *b, char *msg, size_t size)
{
	PFN_cuTensorMapEncodeTiled_v12000 enc = gq_wg_encoder();
	if (!enc ||
	    gq_wg_encode_one(enc, &in->map_a, a, in->p.k, 128, 64, GQ_WG_BK, 0) != CUDA_SUCCESS ||
	    gq_wg_encode_one(enc, &in->map_b, b, in->p.k, in->p.n, 64, GQ_WG_BK, 1) != CUDA_SUCCESS) {
		snprintf(msg, size, "oq: cuTensorMapEncodeTiled refused a map");
		return 3;
	}
	in->a = a, in->b = b;
	return 0;
}

int oq_supports(void *ctx, const gemmq_problem *p, char *msg, size_t size)
{
	(void)ctx;
	if (p->op != 2 || p->in_dtype != 0 || p->m != 128 || p->n % OQ_BN != 0 || p->k < 1 ||
	    p->a_trans != 1 || p->b_trans != 0) {
		snprintf(msg, size, "oq: wgrad, BF16 in, d_out 128, d_in a multiple of 256 only");
		return GEMMQ_UNSUPPORTED;
	}
	return 0;
}

int oq_prepare(void *ctx, const gemmq_problem *p, const gemmq_operands *io, void **instance,
               char *msg, size_t size)
{
	int rc = oq_supports(ctx, p, msg, size);
	if (rc != 0)
		return rc;
	int dev = 0, major = 0;
	cudaError_t e = cudaGetDevice(&dev);
	if (e == cudaSuccess)
		e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
	if (e != cudaSuccess)
		return fail(msg, size, 3, "the device", e);
	if (major != 9) {
		snprintf(msg, size, "oq: sm_90a only");
		return GEMMQ_UNSUPPORTED;
	}
	oq_instance *in = static_cast<oq_instance *>(calloc(1, sizeof(*in)));
	if (!in) {
		snprintf(msg, size, "oq: out of memory");
		return 3;
	}
	in->p = *p;
	const void *f = reinterpret_cast<const void *>(oq_kernel);
	const int tiles = (int)(p->n / OQ_BN);
	e = cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)OQ_SMEM);
	if (e != cudaSuccess) {
		free(in);
		return fail(msg, size, 3, "cudaFuncSetAttribute", e);
	}
	in->cfg.gridDim = dim3(2, (unsigned)tiles, 4);
	in->cfg.blockDim = dim3((unsigned)gq_wg_cfg<64, OQ_BN>::THREADS);
	in->cfg.dynamicSmemBytes = OQ_SMEM;
	in->attr.id = cudaLaunchAttributeClusterDimension;
	in->attr.val.clusterDim.x = 2, in->attr.val.clusterDim.y = 1, in->attr.val.clusterDim.z = 1;
	in->cfg.attrs = &in->attr;
	in->cfg.numAttrs = 1;
	int at_once = 0;
	e = cudaOccupancyMaxActiveClusters(&at_once, f, &in->cfg);
	if (e != cudaSuccess) {
		free(in);
		return fail(msg, size, 3, "cudaOccupancyMaxActiveClusters", e);
	}
	if (at_once < 4 * tiles) {
		snprintf(msg, size, "oq: %d clusters of 2 fit at once, %lld columns need %d",
		         at_once, (long long)p->n, 4 * tiles);
		free(in);
		return GEMMQ_UNSUPPORTED;
	}
	const char *qs = getenv("OQ_Q");
	int q = qs ? atoi(qs) : 32;
	if (q < 0)
		q = 0;
	in->prm.q = q & ~1;
	in->prm.go = getenv("OQ_GO") ? atoi(getenv("OQ_GO")) : 0;
	const size_t sums = (size_t)128 * p->n * sizeof(float);
	const size_t counts = (size_t)tiles * 8 * sizeof(unsigned);
	if ((e = cudaMalloc(&in->ws, sums + counts)) != cudaSuccess ||
	    (e = cudaMemset(in->ws, 0, sums + counts)) != cudaSuccess ||
	    (e = cudaDeviceSynchronize()) != cudaSuccess) {
		if (in->ws)
			cudaFree(in->ws);
		free(in);
		return fail(msg, size, 3, "the workspace", e);
	}
	in->prm.ws = static_cast<float *>(in->ws);
	PFN_cuTensorMapEncodeTiled_v12000 enc = gq_wg_encoder();
	if (!enc || gq_wg_encode_sums(enc, &in->map_c, in->ws, 128, p->n) != CUDA_SUCCESS) {
		snprintf(msg, size, "oq: cuTensorMapEncodeTiled refused the workspace's map");
		cudaFree(in->ws);
		free(in);
		return 3;
	}
	in->prm.counts = reinterpret_cast<unsigned *>(static_cast<char *>(in->ws) + sums);
	in->prm.n = p->n, in->prm.k = p->k, in->prm.out_fp32 = p->out_dtype == 1;
#ifdef OQ_TRACE
	if (getenv("OQ_TRACE_FILE") &&
	    cudaMalloc(&in->prm.trace, (size_t)8 * 8 * tiles * sizeof(unsigned long long)) ==
	        cudaSuccess)
		cudaMemset(in->prm.trace, 0, (size_t)8 * 8 * tiles * sizeof(unsigned long long));
#endif
	if ((rc = encode(in, io->a, io->b, msg, size)) != 0) {
		cudaFree(in->ws);
		free(in);
		return rc;
	}
	*instance = in;
	return 0;
}

int oq_launch(void *instance, const gemmq_operands *io, void *stream, char *msg, size_t size)
{
	oq_instance *in = static_cast<oq_instance *>(instance);
	int rc;
	if ((io->a != in->a || io->b != in->b) && (rc = encode(in, io->a, io->b, msg, size)) != 0)
		return rc;
	in->prm.out = io->out;
	in->cfg.stream = static_cast<cudaStream_t>(stream);
	void *args[] = {&in->map_a, &in->map_b, &in->map_c, &in->prm};
	cudaError_t e = cudaLaunchKernelExC(&in->cfg, reinterpret_cast<const void *>(oq_kernel), args);
	if (e == cudaSuccess)
		e = cudaGetLastError();
	return e == cudaSuccess ? 0 : fail(msg, size, 3, "the launch", e);
}

void oq_release(void *instance)
{
	oq_instance *in = static_cast<oq_instance *>(instance);
#ifdef OQ_TRACE
	if (in && in->prm.trace) { /* the last launch's steps, a line per CTA */
		const int ctas = (int)(8 * (in->p.n / OQ_BN));
		unsigned long long *h =
		    static_cast<unsigned long long *>(calloc((size_t)ctas * 8, sizeof(*h)));
		FILE *f = fopen(getenv("OQ_TRACE_FILE"), "a");
		if (h && f &&
		    cudaMemcpy(h, in->prm.trace, (size_t)ctas * 8 * sizeof(*h),
		               cudaMemcpyDeviceToHost) == cudaSuccess) {
			fprintf(f, "# n %lld k %lld fp32 %d q %d\n", (long long)in->p.n,
			        (long long)in->p.k, in->prm.out_fp32, in->prm.q);
			for (int c = 0; c < ctas; c++) {
				fprintf(f, "%d", c);
				for (int i = 0; i < 8; i++)
					fprintf(f, " %llu", h[(size_t)c * 8 + i]);
				fprintf(f, "\n");
			}
		}
		if (f)
			fclose(f);
		free(h);
		cudaFree(in->prm.trace);
	}
#endif
	if (in && in->ws)
		cudaFree(in->ws);
	free(in);
}

const gemmq_program programs[] = {{
    GEMMQ_PROGRAM_ABI_VERSION,
    "oq",
    "wgrad d_out 128: 4 splits, each finishing a quarter of its tile after the last K-blocks",
    0u,
    nullptr,
    oq_supports,
    oq_prepare,
    oq_launch,
    oq_release,
    nullptr,
}};

} // namespace

extern "C" __attribute__((visibility("default"))) uint32_t
gemmq_plugin_programs(uint32_t host_abi_version, const gemmq_program **out, int *count)
{
	if (host_abi_version == GEMMQ_PROGRAM_ABI_VERSION) {
		*out = programs;
		*count = (int)(sizeof(programs) / sizeof(programs[0]));
	}
	return GEMMQ_PROGRAM_ABI_VERSION;
}
