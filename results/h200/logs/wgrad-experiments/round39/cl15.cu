/* cl15.cu: a gemmq plugin with one GPU program, "cl15", the wgrad GEMM at d_out 128 with its
 * split-K reduced inside the SMs (thirty-ninth round of ../../wgrad-experiments.md; not part of
 * the build).
 *
 * The twenty-eighth round measured an end inside the SMs alone: a tile's four splits and its two
 * M tiles in one cluster of 2 × 1 × 4, each CTA summing 16 rows of its M tile over the four
 * splits from the others' shared memory and storing them, FP32 or BF16. No adds in the L2, no
 * zeroing, no second kernel, the same cost for either out. An H200 holds 15 such clusters at
 * once, and 4096 and 5120 columns make 16 N tiles of 256 and 320. Calls 1 to 3 of this round
 * (cl15-pieces.patch) ran 15 clusters on 15 tiles: as fast as cuBLASLt's fastest at d_in 3840 (15 ×
 * 256), with BF16 out 2.6 µs faster than gemmq:split:n256:s4 there; d_in 4096 and 5120 cut into
 * 15 pieces were 3-52 % slower.
 *
 * Here the grid A of 15 clusters owns N tiles 0 to 14 (each BN columns, its K in main's quarters),
 * and where there is a 16th tile, a second grid B takes it on SMs that A leaves idle: by default
 * 8 CTAs (its two M tiles × the same four quarters, so that its copies of g go with A's; the two
 * M tiles of a quarter a cluster of two that shares x), each storing its FP32 sums in a slice of
 * a workspace and then adding its share of its M tile's rows over the slices in order once all
 * are stored. CL15_B=5|6 cuts B's K in fifths or sixths instead; CL15_HEAD=H gives the first H
 * K-blocks of each quarter to two more pairs. B is A's programmatic dependent: A lets it launch
 * at its start (every CTA of A is resident by then, so B cannot take A's places), and B does not
 * wait for A until its very end (so that the op ends with both). Deterministic: every sum is in
 * a fixed order.
 *
 * The producer and consumers are kernels/gemm_wgmma.cu's (through ../round28/seg.h), with main's
 * x-first copies (1343065); grid A's consumers and its end inside the SMs are ../round28/cl8.cu's
 * without its segment for the 16th tile. CL15_BN=256|320|384 asks for a tile width (by default the narrowest
 * whose tiles number at most the clusters that fit, plus one). The round's results: its section
 * of ../../wgrad-experiments.md. What the earlier calls ran: `patch -o cl15-callN.cu cl15.cu
 * cl15-callN.patch` (calls 4 to 8), `cl15-pieces.patch` (calls 2 and 3; call 1 ran its first
 * state, 64×256 tiles only).
 *
 *   nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC,-fvisibility=hidden \
 *        -gencode arch=compute_90a,code=sm_90a -Ikernels -Iharness \
 *        -o build-exp/cl15/libcl15.so results/h200/logs/wgrad-experiments/round39/cl15.cu \
 *        -lcublasLt -lcuda
 *   build/gemmq bench -p plugin:build-exp/cl15/libcl15.so:cl15 -p gemmq:split:n256:s4 PROTOCOL
 */
#include "../../../../../kernels/gemm_wgmma.cu"
#include "../diag.h"
#include "../stream.h"
#include "../round28/seg.h"

#include <cooperative_groups.h>

#include "gemmq_program.h"

namespace cg = cooperative_groups;

struct cl15_params {
	void *out; /* [128, n], FP32 or BF16 */
	int64_t n, k;
	int out_fp32;
	int tiles;          /* A's N tiles (its clusters); B's tile is the next one */
	float *slices;      /* B: [pieces][128][BN] FP32 sums of its splits */
	unsigned *tickets;  /* B: two per M tile (stored, added), zeroed once, set back after */
	int head;           /* B: K-blocks of each quarter's head that its pieces 4 and 5 take */
};

/* The 64×384 tile: two consumer warpgroups of 192 columns and the 64×320 tile's producer
 * warpgroup (main has no such tile; the twenty-third round's n384.patch had it), three stages. */
template <> struct gq_wg_cfg<64, 384> {
	static constexpr int WN = 192, WN_LAST = 192, WG_M = 1, WG_N = 2, CONSUMERS = 2;
	static constexpr int PRODUCER_THREADS = 128, THREADS = CONSUMERS * 128 + PRODUCER_THREADS;
	static constexpr int PRODUCER_REGS = 72, CONSUMER_REGS = 216, CTAS_PER_SM = 1;
	static constexpr int A_BYTES = GQ_WG_BOX_BYTES, B_BYTES = 6 * GQ_WG_BOX_BYTES;
	static constexpr int STAGE_BYTES = A_BYTES + B_BYTES, STAGES = 3;
	static constexpr size_t SMEM = (size_t)STAGES * STAGE_BYTES + 1024;
	static constexpr bool PIPE = true;
	static constexpr int CHUNK_ROUNDS = 2;
};

/* The producer thread: the CTA's K-blocks through the ring, R runs of them (run r: nkb[r]
 * K-blocks from row0[r]), x's boxes first (this CTA, rank mx of its pair, copies half of them
 * multicast to both CTAs of the pair: mask), g's own box after them (evict-last); then it waits
 * until the pair's consumers have released the last stages, as seg_produce does. */
template <int BN, int R>
__device__ __forceinline__ void cl15_produce(const CUtensorMap *map_a, const CUtensorMap *map_b,
                                             uint64_t *full, uint64_t *empty,
                                             unsigned char *smem, int m0, int mx, uint16_t mask,
                                             const int64_t (&nkb)[R], const int64_t (&row0)[R],
                                             int n0, int nb)
{
	using C = gq_wg_cfg<64, BN>;
	const uint64_t keep = gq_wg_policy_evict_last();
	const uint32_t full0 = gq_wg_smem_addr(full), empty0 = gq_wg_smem_addr(empty);
	const uint32_t ring0 = gq_wg_smem_addr(smem);
	int s = 0, i = 0;
	uint32_t parity = 0;
	for (int r = 0; r < R; r++) {
		int32_t row = (int32_t)(row0[r] * GQ_WG_BK);
		for (int64_t t = 0; t < nkb[r]; t++, i++) {
			if (i >= C::STAGES)
				gq_wg_bar_wait(empty0 + 8 * s, parity);
			const uint32_t bar = full0 + 8 * s;
			const uint32_t a = ring0 + (uint32_t)s * C::STAGE_BYTES;
			const uint32_t b = a + C::A_BYTES;
			gq_wg_bar_expect_tx(bar, C::A_BYTES + nb * GQ_WG_BOX_BYTES);
			const int h = (nb + 1) / 2;
			for (int cc = mx ? h : 0; cc < (mx ? nb : h); cc++)
				gq_wg_tma_load_mc_nohint(b + cc * GQ_WG_BOX_BYTES, map_b, n0 + 64 * cc, row,
				                         bar, mask);
			gq_wg_copy_a<64>(a, map_a, m0, row, bar, keep);
			row += GQ_WG_BK;
			gq_wg_next_stage<C::STAGES>(s, parity, i >= C::STAGES);
		}
	}
	for (int j = i; j < i + C::STAGES; j++) {
		if (j >= C::STAGES)
			gq_wg_bar_wait(empty0 + 8 * s, parity);
		gq_wg_next_stage<C::STAGES>(s, parity, j >= C::STAGES);
	}
}

/* Consumer warpgroup wg (WN columns from col): its nkb K-blocks, then its sums stored in the
 * shared memory at `mine` ([64][LD] floats) over the idle ring. */
template <int BN, int WN>
__device__ __forceinline__ void cl15_consumer(unsigned char *smem, uint64_t *full,
                                              uint64_t *empty, int64_t nkb, int col, int z,
                                              float *mine, int LD, int tid)
{
	using C = gq_wg_cfg<64, BN>;
	/* acc is not set: each chunk's first multiply ignores it (scale-d 0), and setting it made
	 * ptxas serialize the 64×320 tile's multiplies (C7515) */
	float acc[WN / 2], sum[WN / 2];
#pragma unroll
	for (int i = 0; i < WN / 2; i++)
		sum[i] = 0.f;
	/* the pair's CTAs are cluster ranks 2z and 2z + 1 */
	const seg_ring g = seg_ring_of<BN>(smem, full, empty, col, 2u * (uint32_t)z);
	const int warp = (tid % 128) / 32, lane = tid & 31;
	uint32_t parity = 0;
	seg_consume<BN, WN>(acc, sum, (int)nkb, parity, g.full0, g.empties, g.da0, g.db0, tid);
	gq_wg_consumers_sync(C::CONSUMERS * 128); /* the ring is idle: every stage has landed */
#pragma unroll
	for (int j = 0; j < WN / 2; j += 2) {
		const int r = 16 * warp + lane / 4 + 8 * ((j >> 1) & 1);
		const int c = col + 8 * (j >> 2) + 2 * (lane % 4);
		*reinterpret_cast<float2 *>(mine + r * LD + c) = make_float2(sum[j], sum[j + 1]);
	}
}

/* Grid (2, tiles, 4) in clusters of 2 × 1 × 4: CTA (mx, c, z) is M tile mx (rows 64·mx..) of N
 * tile c, split z; cluster rank mx + 2z. */
template <int BN>
__global__ void __launch_bounds__(gq_wg_cfg<64, BN>::THREADS, 1)
    cl15_kernel(const __grid_constant__ CUtensorMap map_a,
                const __grid_constant__ CUtensorMap map_b, const cl15_params p)
{
	using C = gq_wg_cfg<64, BN>;
	constexpr int LD = BN + 4;
	extern __shared__ unsigned char gq_wg_smem_raw[];
	__shared__ __align__(8) uint64_t full[C::STAGES], empty[C::STAGES];
	unsigned char *smem = reinterpret_cast<unsigned char *>(
	    (reinterpret_cast<uintptr_t>(gq_wg_smem_raw) + 1023) & ~(uintptr_t)1023);
	float *mine = reinterpret_cast<float *>(smem);
	const int tid = threadIdx.x, mx = blockIdx.x, c = blockIdx.y, z = blockIdx.z;
	const int64_t kb = (p.k + GQ_WG_BK - 1) / GQ_WG_BK;
	const int64_t b0 = z * kb / 4, b1 = (z + 1) * kb / 4;
	const int m0 = 64 * mx, nB = c * BN;
	constexpr int W = BN;

	/* B (if any) may launch: once every CTA of A has come here, A holds all its places */
	asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
	gq_wg_ring_init<64, BN, 2>(smem, full, empty, 64, tid);
	gq_wg_cluster_sync();

	if (__shfl_sync(0xffffffffu, tid / 32, 0) >= C::CONSUMERS * 4) {
		if (C::PRODUCER_THREADS == 128)
			asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(C::PRODUCER_REGS));
		if (tid == C::CONSUMERS * 128)
			cl15_produce<BN, 1>(&map_a, &map_b, full, empty, smem, m0, mx,
			                    (uint16_t)(3u << (2 * z)), {b1 - b0}, {b0}, nB, W / 64);
		gq_wg_cluster_sync();
		gq_wg_cluster_sync();
		return;
	}
	{
		const int wg = __shfl_sync(0xffffffffu, tid / 128, 0);
		if (C::PRODUCER_THREADS == 128)
			asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(C::CONSUMER_REGS));
		const int col = C::WN * wg;
		if (C::WN_LAST != C::WN && wg == C::CONSUMERS - 1)
			cl15_consumer<BN, C::WN_LAST>(smem, full, empty, b1 - b0, col, z, mine, LD, tid);
		else
			cl15_consumer<BN, C::WN>(smem, full, empty, b1 - b0, col, z, mine, LD, tid);
	}
	gq_wg_cluster_sync(); /* every CTA's sums of tile c in its shared memory */
	cg::cluster_group cluster = cg::this_cluster();
	const float *src[4];
#pragma unroll
	for (int s = 0; s < 4; s++)
		src[s] = cluster.map_shared_rank(mine, (unsigned)(mx + 2 * s));
	constexpr int NT = C::CONSUMERS * 128, Q = W / 4;
	for (int q = tid; q < 16 * Q; q += NT) {
		const int r = 16 * z + q / Q, cq = 4 * (q % Q);
		float4 a = *reinterpret_cast<const float4 *>(src[0] + r * LD + cq);
#pragma unroll
		for (int s = 1; s < 4; s++) {
			const float4 b = *reinterpret_cast<const float4 *>(src[s] + r * LD + cq);
			a.x += b.x, a.y += b.y, a.z += b.z, a.w += b.w;
		}
		seg_store4(p.out, p.out_fp32, (int64_t)(m0 + r) * p.n + nB + cq, a);
	}
	gq_wg_cluster_sync(); /* no CTA reads another's shared memory any more */
}

/* Grid B: the N tile after A's, CTA (mx, 0, z) its M tile mx and piece z of K (pieces: 4, A's
 * quarters, so that its copies of g go with A's, or more, so that it ends sooner), the two M
 * tiles of a piece a cluster of two that shares x as A's pairs do. Its sums go to slice z; once
 * all the pieces of M tile mx have stored theirs, each adds its share of the tile's rows over the
 * slices in order, every load before the stores, and stores them. Then B waits for A
 * (griddepcontrol.wait) before it ends. The calls before (cl15-callN.patch): 4, B without clusters
 * (each CTA copying all of x's boxes itself: B took 1.65 times A's time); 5, the pairs (B ended
 * 3.6-4.6 µs after A), the last piece to store adding all the rows (a trip to the L2 per row in
 * turn); 6, a fifth pair taking the last few % of each quarter (B ended later still); 7, the
 * rows shared out (B still 3.6-4.9 µs after A); 8, B's K in 5 or 6 pieces (B ends with A, A takes
 * 3-4 µs longer: B's copies of g out of step with A's). From call 9, CL15_HEAD: the quarters'
 * heads to two more pairs. */
template <int BN>
__global__ void __launch_bounds__(gq_wg_cfg<64, BN>::THREADS, 1)
    cl15_tail_kernel(const __grid_constant__ CUtensorMap map_a,
                     const __grid_constant__ CUtensorMap map_b, const cl15_params p)
{
	using C = gq_wg_cfg<64, BN>;
	extern __shared__ unsigned char gq_wg_smem_raw[];
	__shared__ __align__(8) uint64_t full[C::STAGES], empty[C::STAGES];
	unsigned char *smem = reinterpret_cast<unsigned char *>(
	    (reinterpret_cast<uintptr_t>(gq_wg_smem_raw) + 1023) & ~(uintptr_t)1023);
	const int tid = threadIdx.x, mx = blockIdx.x, z = blockIdx.z;
	const int64_t kb = (p.k + GQ_WG_BK - 1) / GQ_WG_BK;
	/* split z of the pieces (gridDim.z, 4 or more) takes K-blocks [z·kb/pieces, (z + 1)·kb/pieces);
	 * with heads (p.head > 0, six pieces), pieces 0-3 take A's quarters but their first p.head
	 * K-blocks, which pieces 4 and 5 take, two quarters each */
	const unsigned pieces = gridDim.z;
	int64_t k0 = z * kb / pieces, nkb = (z + 1) * kb / pieces - k0, h0 = 0, h1 = 0, hn0 = 0,
	        hn1 = 0;
	if (p.head > 0) {
		if (z < 4) {
			k0 = z * kb / 4;
			nkb = (z + 1) * kb / 4 - k0;
			const int64_t h = nkb < p.head ? nkb : p.head;
			k0 += h, nkb -= h;
		} else {
			const int qa = 2 * (z - 4), qb = qa + 1;
			h0 = qa * kb / 4, hn0 = (qa + 1) * kb / 4 - h0;
			h1 = qb * kb / 4, hn1 = (qb + 1) * kb / 4 - h1;
			hn0 = hn0 < p.head ? hn0 : p.head;
			hn1 = hn1 < p.head ? hn1 : p.head;
			nkb = hn0 + hn1;
		}
	}
	const int m0 = 64 * mx, nB = p.tiles * BN;
	constexpr int NT = C::CONSUMERS * 128;

	gq_wg_ring_init<64, BN, 2>(smem, full, empty, 64, tid);
	gq_wg_cluster_sync();
	if (__shfl_sync(0xffffffffu, tid / 32, 0) >= C::CONSUMERS * 4) {
		if (C::PRODUCER_THREADS == 128)
			asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(C::PRODUCER_REGS));
		if (tid == C::CONSUMERS * 128 && (p.head == 0 || z < 4))
			cl15_produce<BN, 1>(&map_a, &map_b, full, empty, smem, m0, mx, (uint16_t)3u, {nkb},
			                    {k0}, nB, BN / 64);
		else if (tid == C::CONSUMERS * 128)
			cl15_produce<BN, 2>(&map_a, &map_b, full, empty, smem, m0, mx, (uint16_t)3u,
			                    {hn0, hn1}, {h0, h1}, nB, BN / 64);
		gq_wg_cluster_sync();
		asm volatile("griddepcontrol.wait;" ::: "memory");
		return;
	}
	const int wg = __shfl_sync(0xffffffffu, tid / 128, 0);
	if (C::PRODUCER_THREADS == 128)
		asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(C::CONSUMER_REGS));
	const int col = C::WN * wg;
	float *slice = p.slices + (size_t)z * 128 * BN;
	auto run = [&](auto wn) {
		constexpr int WN = decltype(wn)::value;
		float acc[WN / 2], sum[WN / 2];
#pragma unroll
		for (int i = 0; i < WN / 2; i++)
			sum[i] = 0.f;
		const seg_ring g = seg_ring_of<BN>(smem, full, empty, col, 0u);
		uint32_t parity = 0;
		seg_consume<BN, WN>(acc, sum, (int)nkb, parity, g.full0, g.empties, g.da0, g.db0,
		                    tid);
		const int warp = (tid % 128) / 32, lane = tid & 31;
#pragma unroll
		for (int j = 0; j < WN / 2; j += 2) {
			const int r = m0 + 16 * warp + lane / 4 + 8 * ((j >> 1) & 1);
			const int c = col + 8 * (j >> 2) + 2 * (lane % 4);
			__stcg(reinterpret_cast<float2 *>(slice + (size_t)r * BN + c),
			       make_float2(sum[j], sum[j + 1]));
		}
	};
	if (C::WN_LAST != C::WN && wg == C::CONSUMERS - 1)
		run(std::integral_constant<int, C::WN_LAST>());
	else
		run(std::integral_constant<int, C::WN>());
	/* every piece of M tile mx stores its slice and counts it (tickets[mx]); each then waits
	 * for all of them (B's CTAs are on SMs A leaves idle, and A waits for nothing of B's, so
	 * they all come) and adds its share of the rows, every load before the stores; the last to
	 * count its share done (tickets[2 + mx]) sets both counts back */
	__threadfence();
	gq_wg_consumers_sync(NT);
	if (tid == 0) {
		atomicAdd(p.tickets + mx, 1u);
		unsigned seen;
		do {
			asm volatile("ld.acquire.gpu.global.u32 %0, [%1];"
			             : "=r"(seen)
			             : "l"(p.tickets + mx)
			             : "memory");
			if (seen < pieces)
				__nanosleep(64);
		} while (seen < pieces);
	}
	gq_wg_consumers_sync(NT);
	{
		constexpr int Q = BN / 4, PER = (16 * Q + NT - 1) / NT; /* at most 16 rows each */
		const int r0 = m0 + 64 * z / (int)pieces, rows = m0 + 64 * (z + 1) / (int)pieces - r0;
		float4 a[PER];
#pragma unroll
		for (int i = 0; i < PER; i++) {
			const int q = tid + i * NT;
			if (q < rows * Q) {
				const size_t at = (size_t)(r0 + q / Q) * BN + 4 * (q % Q);
				a[i] = __ldcg(reinterpret_cast<const float4 *>(p.slices + at));
				for (unsigned s = 1; s < pieces; s++) {
					const float4 b = __ldcg(reinterpret_cast<const float4 *>(
					    p.slices + s * (size_t)128 * BN + at));
					a[i].x += b.x, a[i].y += b.y, a[i].z += b.z, a[i].w += b.w;
				}
			}
		}
#pragma unroll
		for (int i = 0; i < PER; i++) {
			const int q = tid + i * NT;
			if (q < rows * Q)
				seg_store4(p.out, p.out_fp32, (int64_t)(r0 + q / Q) * p.n + nB + 4 * (q % Q),
				           a[i]);
		}
	}
	gq_wg_consumers_sync(NT);
	if (tid == 0 && atomicAdd(p.tickets + 2 + mx, 1u) == pieces - 1) {
		p.tickets[mx] = 0u;
		p.tickets[2 + mx] = 0u;
	}
	gq_wg_cluster_sync();
	asm volatile("griddepcontrol.wait;" ::: "memory");
}

/* ---- the plugin ---- */

namespace {

/* A tile width: A's kernel and B's, and their launch shape. */
struct cl15_variant {
	int bn, threads;
	size_t smem;
	const void *a, *b;
};
template <int BN> cl15_variant variant_of()
{
	using C = gq_wg_cfg<64, BN>;
	return {BN, C::THREADS, C::SMEM, reinterpret_cast<const void *>(cl15_kernel<BN>),
	        reinterpret_cast<const void *>(cl15_tail_kernel<BN>)};
}

struct cl15_instance {
	gemmq_problem p;
	CUtensorMap map_a, map_b;
	const void *a, *b; /* the operands the maps were encoded for */
	cl15_params prm;
	cl15_variant v;
	void *ws; /* B's slices and tickets */
	cudaLaunchConfig_t cfg, cfg_b;
	cudaLaunchAttribute attr, attr_b[2];
};

int fail(char *msg, size_t size, int rc, const char *what, cudaError_t e)
{
	snprintf(msg, size, "cl15: %s: %s", what, cudaGetErrorString(e));
	return rc;
}

int encode(cl15_instance *in, const void *a, const void *b, char *msg, size_t size)
{
	PFN_cuTensorMapEncodeTiled_v12000 enc = gq_wg_encoder();
	if (!enc || gq_wg_encode_one(enc, &in->map_a, a, in->p.k, 128, 64, GQ_WG_BK, 0) !=
	                CUDA_SUCCESS ||
	    gq_wg_encode_one(enc, &in->map_b, b, in->p.k, in->p.n, 64, GQ_WG_BK, 1) != CUDA_SUCCESS) {
		snprintf(msg, size, "cl15: cuTensorMapEncodeTiled refused a map");
		return 3;
	}
	in->a = a, in->b = b;
	return 0;
}

int cl15_supports(void *ctx, const gemmq_problem *p, char *msg, size_t size)
{
	(void)ctx;
	if (p->op != 2 || p->in_dtype != 0 || p->m != 128 || p->n % 256 != 0 || p->k < 1 ||
	    p->a_trans != 1 || p->b_trans != 0) {
		snprintf(msg, size, "cl15: wgrad, BF16 in, d_out 128, d_in a multiple of 256 only");
		return GEMMQ_UNSUPPORTED;
	}
	return 0;
}

/* The narrowest tile width (256, 320, 384; CL15_BN asks for one) that cuts n into whole tiles,
 * at most one more than the clusters of 2 × 1 × 4 that fit at once. */
int cl15_prepare(void *ctx, const gemmq_problem *p, const gemmq_operands *io, void **instance,
                 char *msg, size_t size)
{
	int rc = cl15_supports(ctx, p, msg, size);
	if (rc != 0)
		return rc;
	int dev = 0, major = 0;
	cudaError_t e = cudaGetDevice(&dev);
	if (e == cudaSuccess)
		e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
	if (e != cudaSuccess)
		return fail(msg, size, 3, "the device", e);
	if (major != 9) {
		snprintf(msg, size, "cl15: sm_90a only");
		return GEMMQ_UNSUPPORTED;
	}
	cl15_instance *in = static_cast<cl15_instance *>(calloc(1, sizeof(*in)));
	if (!in) {
		snprintf(msg, size, "cl15: out of memory");
		return 3;
	}
	in->p = *p;
	const cl15_variant variants[] = {variant_of<256>(), variant_of<320>(), variant_of<384>()};
	const char *want = getenv("CL15_BN");
	int tiles = 0, at_once = 0;
	for (const cl15_variant &v : variants) {
		if ((want && atoi(want) != v.bn) || p->n % v.bn != 0)
			continue;
		for (const void *f : {v.a, v.b}) {
			e = cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize,
			                         (int)v.smem);
			if (e != cudaSuccess) {
				free(in);
				return fail(msg, size, 3, "cudaFuncSetAttribute", e);
			}
		}
		in->cfg.gridDim = dim3(2, 1, 4);
		in->cfg.blockDim = dim3((unsigned)v.threads);
		in->cfg.dynamicSmemBytes = v.smem;
		in->attr.id = cudaLaunchAttributeClusterDimension;
		in->attr.val.clusterDim.x = 2, in->attr.val.clusterDim.y = 1;
		in->attr.val.clusterDim.z = 4;
		in->cfg.attrs = &in->attr;
		in->cfg.numAttrs = 1;
		e = cudaOccupancyMaxActiveClusters(&at_once, v.a, &in->cfg);
		if (e != cudaSuccess) {
			free(in);
			return fail(msg, size, 3, "cudaOccupancyMaxActiveClusters", e);
		}
		tiles = (int)(p->n / v.bn);
		if (tiles <= at_once + 1) {
			in->v = v;
			break;
		}
	}
	if (!in->v.a) {
		snprintf(msg, size, "cl15: %lld columns need more tiles than %d clusters and one more",
		         (long long)p->n, at_once);
		free(in);
		return GEMMQ_UNSUPPORTED;
	}
	const int a_tiles = tiles > at_once ? at_once : tiles;
	in->cfg.gridDim = dim3(2, (unsigned)a_tiles, 4);
	in->prm.n = p->n, in->prm.k = p->k, in->prm.out_fp32 = p->out_dtype == 1;
	in->prm.tiles = a_tiles;
	if (a_tiles < tiles) { /* B: the last tile, A's programmatic dependent */
		/* CL15_B=P: B's K in P pieces (4: A's quarters; more: B ends sooner, its copies of g
		 * away from A's) */
		const char *bs = getenv("CL15_B");
		unsigned pieces = bs ? (unsigned)atoi(bs) : 4u;
		if (pieces < 4 || pieces > 8)
			pieces = 4;
		/* CL15_HEAD=H: B's quarters leave their first H K-blocks to two more pairs (six
		 * pieces), so that B ends H K-blocks sooner and its copies of g stay near A's */
		const char *hd = getenv("CL15_HEAD");
		in->prm.head = hd ? atoi(hd) : 0;
		if (in->prm.head < 0)
			in->prm.head = 0;
		if (in->prm.head > 0)
			pieces = 6;
		const size_t slices = (size_t)pieces * 128 * in->v.bn * sizeof(float);
		if ((e = cudaMalloc(&in->ws, slices + 64)) != cudaSuccess ||
		    (e = cudaMemset(in->ws, 0, slices + 64)) != cudaSuccess) {
			if (in->ws)
				cudaFree(in->ws);
			free(in);
			return fail(msg, size, 3, "B's workspace", e);
		}
		in->prm.slices = static_cast<float *>(in->ws);
		in->prm.tickets = reinterpret_cast<unsigned *>(static_cast<char *>(in->ws) + slices);
		in->cfg_b = in->cfg;
		in->cfg_b.gridDim = dim3(2, 1, pieces);
		in->attr_b[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
		in->attr_b[0].val.programmaticStreamSerializationAllowed = 1;
		in->attr_b[1].id = cudaLaunchAttributeClusterDimension;
		in->attr_b[1].val.clusterDim.x = 2, in->attr_b[1].val.clusterDim.y = 1;
		in->attr_b[1].val.clusterDim.z = 1;
		in->cfg_b.attrs = in->attr_b;
		in->cfg_b.numAttrs = 2;
	}
	if ((rc = encode(in, io->a, io->b, msg, size)) != 0) {
		if (in->ws)
			cudaFree(in->ws);
		free(in);
		return rc;
	}
	*instance = in;
	return 0;
}

int cl15_launch(void *instance, const gemmq_operands *io, void *stream, char *msg, size_t size)
{
	cl15_instance *in = static_cast<cl15_instance *>(instance);
	int rc;
	if ((io->a != in->a || io->b != in->b) && (rc = encode(in, io->a, io->b, msg, size)) != 0)
		return rc;
	in->prm.out = io->out;
	in->cfg.stream = in->cfg_b.stream = static_cast<cudaStream_t>(stream);
	void *args[] = {&in->map_a, &in->map_b, &in->prm};
	cudaError_t e = cudaLaunchKernelExC(&in->cfg, in->v.a, args);
	if (e == cudaSuccess)
		e = cudaGetLastError();
	if (e == cudaSuccess && in->ws) {
		e = cudaLaunchKernelExC(&in->cfg_b, in->v.b, args);
		if (e == cudaSuccess)
			e = cudaGetLastError();
	}
	return e == cudaSuccess ? 0 : fail(msg, size, 3, "the launch", e);
}

void cl15_release(void *instance)
{
	cl15_instance *in = static_cast<cl15_instance *>(instance);
	if (in && in->ws)
		cudaFree(in->ws);
	free(in);
}

const gemmq_program programs[] = {{
    GEMMQ_PROGRAM_ABI_VERSION,
    "cl15",
    "wgrad d_out 128: 4 splits summed in the SMs (clusters of 2x1x4), a 16th tile beside them",
    GEMMQ_PROGRAM_DETERMINISTIC,
    nullptr,
    cl15_supports,
    cl15_prepare,
    cl15_launch,
    cl15_release,
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
