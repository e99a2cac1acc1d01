/* cl8.cu: the split programs of d_out 128 with their end inside the SMs (twenty-eighth round of
 * ../../wgrad-experiments.md; not part of the build).
 *
 * At d_out 128 and d_in 4096 (64×256 tiles) or 5120 (64×320) the best split programs run 16 N
 * tiles × 2 M tiles × 4 splits = 128 CTAs, the two M tiles of an N tile and split a cluster that
 * shares x. Their splits add their sums in the L2, and BF16 out then needs a second pass. A
 * tile's four splits and its two M tiles make a cluster of 2 × 1 × 4, and an H200 holds 15 of
 * those at once, not 16. So here 15 clusters each own one N tile (c) whole, and the 16th tile's
 * K-blocks are shared out among them:
 *
 * - cluster c's pair z (its two M tiles, x shared as in main) multiplies, pair 0 first its
 *   fifteenth of the 16th tile's K-blocks (segment A), then each pair a quarter of the cluster's
 *   work on tile c (segment B), so that every pair does as much as any other;
 * - segment A's sums are added into the 16th tile by float2 atomics from the registers (into the
 *   FP32 output, or into FP32 sums for BF16 out), then counted, early in the kernel;
 * - at the end each CTA puts its sums of tile c in its shared memory, the cluster waits, and CTA
 *   (m, z) adds rows [16z, 16z + 16) of its M tile over the four pairs (in pair order, reading
 *   the other CTAs' shared memory) and stores them, FP32 or rounded to BF16: no adds in the L2,
 *   no memset of tiles 0-14, no second kernel;
 * - with BF16 out every CTA also rounds its sixtieth of the 16th tile's sums, once all 60 of
 *   segment A's counts are in (long before the end).
 *
 * The grid is 120 CTAs. The producer and the consumers are kernels/gemm_wgmma.cu's (its ring,
 * copies, descriptors and multiplies); segment A is padded to whole rounds of the ring with
 * K-blocks past K (zeros), so that segment B starts at stage 0 (seg.h's loop). The program
 * compares both outputs with main's gemmq:split (FP32 out, the same tile) and times this op
 * against main's after the harness's flush (CUDA events, medians of LAUNCHES launches, ROUNDS
 * rounds interleaved). CL8_PROBE=1 times the rest without the end (clusters of 2 along M as
 * main's; wrong results), 2 the same with segment A on tile c's columns, 3 this kernel's loops on
 * main's grid of 128 CTAs and main's shares.
 *
 *   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Ikernels -Iharness \
 *        -o build-exp/cl8 results/h200/logs/wgrad-experiments/round28/cl8.cu -lcublasLt
 *   build-exp/cl8 [T [N [LAUNCHES [ROUNDS]]]]   (T 65537; N 4096 and 5120; 30; 3)
 */
#include "../../../../../kernels/gemm_wgmma.cu"
#include "../diag.h"
#include "../stream.h"
#include "seg.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

struct cl8_params {
	float *sums;     /* the 16th tile's FP32 sums: the output itself with FP32 out; zeroed */
	void *out;       /* [m, n], FP32 or BF16 */
	unsigned *count; /* segment A's warpgroups done; zeroed */
	int64_t m, n, k;
	int out_fp32, tiles;
	int no_end; /* timing probes (wrong results): 1 clusters of 2 only, no end; 2 also segment
	             * A on tile c's columns instead of the last tile's; 3 main's grid and shares
	             * (every tile's own 4 pairs, K in quarters, no segment A) in this kernel */
};

/* Cluster c's (of `clusters`) K-blocks of pair z: segment A [a0, a1) of the last tile, segment
 * B [b0, b1) of tile c. Segment A is padded to whole rounds of the ring (S stages) with K-blocks
 * past the end of K (their copies bring zeros), so that segment B starts at the ring's stage 0:
 * *na is its length with the padding. */
__device__ __forceinline__ void cl8_ranges(int c, int z, int64_t kb, int clusters, int S,
                                           int64_t *a0, int64_t *a1, int64_t *na, int64_t *b0,
                                           int64_t *b1)
{
	const int64_t la = c * kb / clusters, lb = (c + 1) * kb / clusters;
	const int64_t L = (lb - la + S - 1) / S * S;
	int64_t B0 = (kb + L) / 4 - L;
	if (B0 < 0)
		B0 = 0;
	if (z == 0) {
		*a0 = la, *a1 = lb, *na = L, *b0 = 0, *b1 = B0;
	} else {
		const int64_t R = kb - B0;
		*a0 = *a1 = *na = 0;
		*b0 = B0 + (z - 1) * R / 3, *b1 = B0 + z * R / 3;
	}
}

/* Consumer warpgroup wg (WN columns from col): both segments (na and nb K-blocks), segment A's
 * sums added into the last tile, then its sums of tile c stored in the shared memory at `mine`
 * ([64][LD] floats). */
template <int BN, int WN>
__device__ __forceinline__ void cl8_consumer(const cl8_params &p, unsigned char *smem,
                                             uint64_t *full, uint64_t *empty, int64_t na,
                                             int64_t nb, int m0, int nA, int wg, int col,
                                             int z, float *mine, int LD, int tid)
{
	using C = gq_wg_cfg<64, BN>;
	float acc[WN / 2], sum[WN / 2];
#pragma unroll
	for (int i = 0; i < WN / 2; i++)
		acc[i] = 0.f, sum[i] = 0.f;
	/* the pair's CTAs are cluster ranks 2z and 2z + 1 (0 and 1 in the probes' clusters of 2) */
	const seg_ring g = seg_ring_of<BN>(smem, full, empty, col, p.no_end ? 0u : 2u * (uint32_t)z);
	const int warp = (tid % 128) / 32, lane = tid & 31;
	uint32_t parity = 0;
	seg_consume<BN, WN>(acc, sum, (int)na, parity, g.full0, g.empties, g.da0, g.db0, tid);
	/* tests on values broadcast from lane 0 and a predicate inside the asm, not branches that
	 * ptxas must take as divergent (see gq_wg_release) */
	if (__shfl_sync(0xffffffffu, (int)(na > 0), 0))
		seg_add_atomic<WN>(sum, p.sums, p.n, m0, nA + col, tid);
	__threadfence();
	asm volatile("bar.sync %0, 128;" ::"r"(2 + wg) : "memory");
	asm volatile("{\n.reg .pred p;\nsetp.eq.u32 p, %1, 0;\n"
	             "@p red.release.gpu.global.add.u32 [%0], 1;\n}\n" ::"l"(p.count),
	             "r"(tid % 128)
	             : "memory"); /* counted even where segment A is empty */
	seg_consume<BN, WN>(acc, sum, (int)nb, parity, g.full0, g.empties, g.da0, g.db0, tid);
	gq_wg_consumers_sync(C::CONSUMERS * 128); /* the ring is idle: every stage has landed */
#pragma unroll
	for (int j = 0; j < WN / 2; j += 2) {
		const int r = 16 * warp + lane / 4 + 8 * ((j >> 1) & 1);
		const int c = col + 8 * (j >> 2) + 2 * (lane % 4);
		*reinterpret_cast<float2 *>(mine + r * LD + c) = make_float2(sum[j], sum[j + 1]);
	}
}

template <int BN>
__global__ void __launch_bounds__(gq_wg_cfg<64, BN>::THREADS, 1)
    cl8_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
               const cl8_params p)
{
	using C = gq_wg_cfg<64, BN>;
	constexpr int LD = BN + 4;
	extern __shared__ unsigned char gq_wg_smem_raw[];
	__shared__ __align__(8) uint64_t full[C::STAGES], empty[C::STAGES];
	unsigned char *smem = reinterpret_cast<unsigned char *>(
	    (reinterpret_cast<uintptr_t>(gq_wg_smem_raw) + 1023) & ~(uintptr_t)1023);
	float *mine = reinterpret_cast<float *>(smem);
	const int tid = threadIdx.x, mx = blockIdx.x, c = blockIdx.y, z = blockIdx.z;
	const int clusters = gridDim.y;
	const int64_t kb = (p.k + GQ_WG_BK - 1) / GQ_WG_BK;
	int64_t a0, a1, na, b0, b1;
	cl8_ranges(c, z, kb, clusters, C::STAGES, &a0, &a1, &na, &b0, &b1);
	if (p.no_end == 3)
		a0 = a1 = na = 0, b0 = z * kb / 4, b1 = (z + 1) * kb / 4;
	const int m0 = 64 * mx, nA = (p.no_end == 2 ? c : p.tiles - 1) * BN, nB = c * BN;

	gq_wg_ring_init<64, BN, 2>(smem, full, empty, 64, tid);
	gq_wg_cluster_sync();

	if (__shfl_sync(0xffffffffu, tid / 32, 0) >= C::CONSUMERS * 4) {
		if (C::PRODUCER_THREADS == 128)
			asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(C::PRODUCER_REGS));
		if (tid == C::CONSUMERS * 128) {
			/* segment A, its padding (rows past K: zeros), segment B */
			const int64_t n_kb[3] = {a1 - a0, na - (a1 - a0), b1 - b0}, row0[3] = {a0, kb, b0};
			const int n0[3] = {nA, nA, nB}, step[3] = {1, 0, 1};
			seg_produce<BN>(&map_a, &map_b, full, empty, smem, m0, mx,
			                (uint16_t)(3u << (p.no_end ? 0 : 2 * z)), false, n_kb, row0, n0,
			                step, [](int) {});
		}
		/* the producer's threads only take part in the cluster's two waits below: the end is
		 * the consumers' (code shared with them after setmaxnreg made ptxas serialize the
		 * multiplies, warning C7518) */
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
			cl8_consumer<BN, C::WN_LAST>(p, smem, full, empty, na, b1 - b0, m0, nA, wg,
			                             col, z, mine, LD, tid);
		else
			cl8_consumer<BN, C::WN>(p, smem, full, empty, na, b1 - b0, m0, nA, wg, col,
			                        z, mine, LD, tid);
	}
	gq_wg_cluster_sync(); /* every CTA's sums of tile c in its shared memory */
	if (p.no_end) {
		gq_wg_cluster_sync();
		return;
	}
	cg::cluster_group cluster = cg::this_cluster();
	const float *src[4];
#pragma unroll
	for (int s = 0; s < 4; s++)
		src[s] = cluster.map_shared_rank(mine, (unsigned)(mx + 2 * s));
	constexpr int Q = BN / 4, NT = C::CONSUMERS * 128;
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
	if (!p.out_fp32) { /* this CTA's sixtieth of the last tile's 64 × BN block of M tile mx */
		const unsigned want = (unsigned)(clusters * 2 * C::CONSUMERS);
		if (tid == 0) {
			unsigned seen;
			do {
				asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(p.count));
			} while (seen < want);
		}
		gq_wg_consumers_sync(NT);
		const int pieces = clusters * 4, piece = c * 4 + z;
		const int q0 = piece * (64 * Q) / pieces, q1 = (piece + 1) * (64 * Q) / pieces;
		for (int q = q0 + tid; q < q1; q += NT) { /* 64 × BN / 4 quads in all */
			const int r = q / Q, cq = 4 * (q % Q);
			const int64_t at = (int64_t)(m0 + r) * p.n + nA + cq;
			const float4 v = __ldcg(reinterpret_cast<const float4 *>(p.sums + at));
			seg_store4(p.out, 0, at, v);
		}
	}
	gq_wg_cluster_sync(); /* no CTA reads another's shared memory any more */
}

/* ---- host ---- */

struct cl8_op {
	CUtensorMap map_a, map_b;
	cl8_params p;
	cudaLaunchConfig_t cfg;
	cudaLaunchAttribute attr;
	const void *func;
};

/* The cl8 op for out [128, N] = gᵀ·x: 15 clusters of 2 × 1 × 4, tiles of BN columns. */
template <int BN>
static void cl8_plan(cl8_op *op, const void *g, const void *x, void *out, float *ws,
                     unsigned *count, int64_t N, int64_t T, int out_fp32)
{
	using C = gq_wg_cfg<64, BN>;
	PFN_cuTensorMapEncodeTiled_v12000 enc = gq_wg_encoder();
	if (gq_wg_encode_one(enc, &op->map_a, g, T, 128, 64, GQ_WG_BK, 0) != CUDA_SUCCESS ||
	    gq_wg_encode_one(enc, &op->map_b, x, T, N, 64, GQ_WG_BK, 1) != CUDA_SUCCESS) {
		fprintf(stderr, "cuTensorMapEncodeTiled refused a map\n");
		exit(1);
	}
	op->p.sums = out_fp32 ? static_cast<float *>(out) : ws;
	op->p.out = out, op->p.count = count;
	op->p.m = 128, op->p.n = N, op->p.k = T;
	op->p.out_fp32 = out_fp32, op->p.tiles = (int)(N / BN);
	op->func = reinterpret_cast<const void *>(cl8_kernel<BN>);
	CHECK(cudaFuncSetAttribute(cl8_kernel<BN>, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                           (int)C::SMEM));
	/* CL8_PROBE=1: clusters of 2 along M (main's), the end left out, to time the rest; 2: also
	 * segment A on tile c's columns; 3: as 1 on main's grid of 128 CTAs with main's shares */
	const char *probe = getenv("CL8_PROBE");
	op->p.no_end = probe ? atoi(probe) : 0;
	memset(&op->cfg, 0, sizeof(op->cfg));
	op->cfg.gridDim = dim3(2, (unsigned)(op->p.tiles - (op->p.no_end == 3 ? 0 : 1)), 4);
	op->cfg.blockDim = dim3(C::THREADS);
	op->cfg.dynamicSmemBytes = C::SMEM;
	op->attr.id = cudaLaunchAttributeClusterDimension;
	op->attr.val.clusterDim.x = 2, op->attr.val.clusterDim.y = 1;
	op->attr.val.clusterDim.z = op->p.no_end ? 1 : 4;
	op->cfg.attrs = &op->attr;
	op->cfg.numAttrs = 1;
	int at_once = 0;
	CHECK(cudaOccupancyMaxActiveClusters(&at_once, cl8_kernel<BN>, &op->cfg));
	if (!op->p.no_end && at_once < op->p.tiles - 1) {
		fprintf(stderr, "only %d clusters of 8 fit at once; the grid has %d\n", at_once,
		        op->p.tiles - 1);
		exit(1);
	}
}

static void cl8_launch(cl8_op *op)
{
	const int64_t count = op->p.m * op->p.n;
	CHECK(cudaMemsetAsync(op->p.sums, 0, (size_t)count * 4));
	CHECK(cudaMemsetAsync(op->p.count, 0, sizeof(unsigned)));
	void *args[] = {&op->map_a, &op->map_b, &op->p};
	CHECK(cudaLaunchKernelExC(&op->cfg, op->func, args));
}

template <int BN> static void run(int64_t N, int64_t T, int rounds, const diag_gpu &gpu)
{
	seg_bench b;
	seg_open<BN>(&b, N, T, 0, gpu);
	/* the BF16 op's sums in ws (main's BF16 workspace, free while this op runs), the two
	 * counters in ws16 */
	unsigned *cnt = reinterpret_cast<unsigned *>(b.ws16);
	cl8_op o32, o16;
	cl8_plan<BN>(&o32, b.g, b.x, b.out32, b.ws, cnt, N, T, 1);
	cl8_plan<BN>(&o16, b.g, b.x, b.out16, b.ws, cnt + 1, N, T, 0);
	seg_compare(&b, BN, "cl8", "", [&] { cl8_launch(&o32); }, [&] { cl8_launch(&o16); }, rounds,
	            o32.p.no_end != 0);
	seg_close(&b);
}

int main(int argc, char **argv)
{
	return seg_main(argc, argv, "cl8", run<256>, run<320>);
}
