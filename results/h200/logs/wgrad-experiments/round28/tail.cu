/* tail.cu: main's schedule on every SM (twenty-eighth round of ../../wgrad-experiments.md; not
 * part of the build).
 *
 * sk.cu found main's split schedule (the 16 N tiles' CTAs of split z at the same K offset) worth
 * more than any spread of the same work over 132 CTAs, and cl8.cu that fewer CTAs with more work
 * each take longer. Here main's 64 pairs keep their schedule on K-blocks [0, kb − D) (quarter q of
 * it for pair 4t + q of tile t), and the 4 SMs main leaves idle run 2 more pairs that take the
 * last D K-blocks of 8 tiles each, one tile after the other (pair 64 + e: tiles 8e to 8e + 7, K-blocks
 * [kb − D, kb)). D defaults to kb/33 rounded down to whole rounds of the ring (S stages; 30 for
 * 64×256 and 28 for 64×320 at T = 65537), which gives the two extra pairs about as much work as
 * the others; every segment of theirs is whole rounds, so each starts at stage 0, and its sums are
 * added by atomics from the registers, the last by the TMA unit as main adds. TAIL_D=D sets D (a
 * multiple of S). The producer, ring, copies, multiplies and end are kernels/gemm_wgmma.cu's, the
 * bench seg.h's.
 *
 *   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Ikernels -Iharness \
 *        -o build-exp/tail results/h200/logs/wgrad-experiments/round28/tail.cu -lcublasLt
 *   build-exp/tail [T [N [LAUNCHES [ROUNDS]]]]   (T 65537; N 4096 and 5120; 30; 3)
 */
#include "../../../../../kernels/gemm_wgmma.cu"
#include "../diag.h"
#include "../stream.h"
#include "seg.h"

#define TL_MAX_SEGS 8 /* tiles / 2 */

struct tl_params {
	float *sums; /* FP32 [m, n]: the output itself with FP32 out; zeroed */
	int64_t m, n, k;
	int tiles, tail, bf16;
};

/* Pair p's segment j (of *nseg): tile *tile, K-blocks [*k0, *k0 + *len). */
__device__ __forceinline__ void tl_segment(int p, int j, int tiles, int64_t kb, int tail,
                                           int *nseg, int *tile, int64_t *k0, int64_t *len)
{
	if (p < 4 * tiles) {
		const int64_t body = kb - tail, q = p % 4;
		*nseg = 1, *tile = p / 4;
		*k0 = q * body / 4, *len = (q + 1) * body / 4 - *k0;
	} else {
		*nseg = tiles / 2, *tile = (p - 4 * tiles) * (tiles / 2) + j;
		*k0 = kb - tail, *len = tail;
	}
}

/* Consumer warpgroup wg, WN columns from col: each segment multiplied, its sums added by
 * atomics but the last one's, added by the TMA unit. */
template <int BN, int WN>
__device__ __forceinline__ void tl_consumer(const CUtensorMap *map_c, const tl_params &p,
                                            unsigned char *smem, uint64_t *full, uint64_t *empty,
                                            int64_t kb, int m0, int wg, int col, int tid)
{
	using C = gq_wg_cfg<64, BN>;
	float acc[WN / 2], sum[WN / 2];
#pragma unroll
	for (int i = 0; i < WN / 2; i++)
		acc[i] = 0.f, sum[i] = 0.f;
	const seg_ring g = seg_ring_of<BN>(smem, full, empty, col, 0);
	uint32_t parity = 0;
	int nseg = 1, tile = 0;
	int64_t k0, len;
	tl_segment(blockIdx.y, 0, p.tiles, kb, p.tail, &nseg, &tile, &k0, &len);
	/* values broadcast from lane 0: no branch ptxas must take as divergent */
	nseg = __shfl_sync(0xffffffffu, nseg, 0);
	for (int j = 0; j < nseg; j++) {
		tl_segment(blockIdx.y, j, p.tiles, kb, p.tail, &nseg, &tile, &k0, &len);
		seg_consume<BN, WN>(acc, sum, (int)len, parity, g.full0, g.empties, g.da0, g.db0, tid);
		if (__shfl_sync(0xffffffffu, (int)(j + 1 < nseg), 0))
			seg_add_atomic<WN>(sum, p.sums, p.n, m0, (int64_t)tile * BN + col, tid);
	}
	gq_wg_reduce_tile<WN, C::CONSUMERS * 128>(map_c, smem, wg, (size_t)wg * 64 * C::WN * 4, sum,
	                                          tile * BN + col, m0);
}

template <int BN>
__global__ void __launch_bounds__(gq_wg_cfg<64, BN>::THREADS, 1)
    tl_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
              const __grid_constant__ CUtensorMap map_c, const tl_params p)
{
	using C = gq_wg_cfg<64, BN>;
	extern __shared__ unsigned char gq_wg_smem_raw[];
	__shared__ __align__(8) uint64_t full[C::STAGES], empty[C::STAGES];
	unsigned char *smem = reinterpret_cast<unsigned char *>(
	    (reinterpret_cast<uintptr_t>(gq_wg_smem_raw) + 1023) & ~(uintptr_t)1023);
	const int tid = threadIdx.x, mx = blockIdx.x, m0 = 64 * mx;
	if (p.bf16) /* the rounding after it may start: it waits for this grid */
		asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
	const int64_t kb = (p.k + GQ_WG_BK - 1) / GQ_WG_BK;

	gq_wg_ring_init<64, BN, 2>(smem, full, empty, 64, tid);
	gq_wg_cluster_sync();

	if (__shfl_sync(0xffffffffu, tid / 32, 0) >= C::CONSUMERS * 4) {
		if (C::PRODUCER_THREADS == 128)
			asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(C::PRODUCER_REGS));
		if (tid == C::CONSUMERS * 128) {
			int64_t n_kb[TL_MAX_SEGS] = {}, row0[TL_MAX_SEGS] = {};
			int n0[TL_MAX_SEGS] = {}, step[TL_MAX_SEGS] = {};
			int nseg = 1;
			for (int j = 0; j < nseg && j < TL_MAX_SEGS; j++) {
				int tile;
				tl_segment(blockIdx.y, j, p.tiles, kb, p.tail, &nseg, &tile, &row0[j],
				           &n_kb[j]);
				n0[j] = tile * BN, step[j] = 1;
			}
			seg_produce<BN>(&map_a, &map_b, full, empty, smem, m0, mx, (uint16_t)3, false,
			                n_kb, row0, n0, step, [](int) {});
		}
		return;
	}
	const int wg = __shfl_sync(0xffffffffu, tid / 128, 0);
	if (C::PRODUCER_THREADS == 128)
		asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(C::CONSUMER_REGS));
	const int col = C::WN * wg;
	if (C::WN_LAST != C::WN && wg == C::CONSUMERS - 1)
		tl_consumer<BN, C::WN_LAST>(&map_c, p, smem, full, empty, kb, m0, wg, col, tid);
	else
		tl_consumer<BN, C::WN>(&map_c, p, smem, full, empty, kb, m0, wg, col, tid);
}

/* ---- host ---- */

struct tl_op {
	seg_pair_op o;
	tl_params p;
};

template <int BN>
static void tl_plan(tl_op *op, const void *g, const void *x, void *out, float *ws, int64_t N,
                    int64_t T, int out_fp32)
{
	using C = gq_wg_cfg<64, BN>;
	const int64_t kb = (T + GQ_WG_BK - 1) / GQ_WG_BK;
	const char *env = getenv("TAIL_D");
	const int tail = env ? atoi(env) : (int)(kb / 33 / C::STAGES * C::STAGES);
	const int tiles = (int)(N / BN);
	if (tail < C::STAGES || tail % C::STAGES || tail > kb / 2 || tiles % 2 ||
	    tiles / 2 > TL_MAX_SEGS) {
		fprintf(stderr, "TAIL_D must be a multiple of %d (the ring's stages) up to K-blocks/2, "
		                "and the N tiles even and at most %d\n",
		        C::STAGES, 2 * TL_MAX_SEGS);
		exit(1);
	}
	seg_pair_plan<BN>(&op->o, reinterpret_cast<const void *>(tl_kernel<BN>), g, x, out, ws, N, T,
	                  out_fp32, 4 * tiles + 2);
	op->p.sums = op->o.sums;
	op->p.m = 128, op->p.n = N, op->p.k = T;
	op->p.tiles = tiles, op->p.tail = tail, op->p.bf16 = !out_fp32;
}

template <int BN> static void run(int64_t N, int64_t T, int rounds, const diag_gpu &gpu)
{
	seg_bench b;
	seg_open<BN>(&b, N, T, 0, gpu);
	tl_op o32, o16;
	tl_plan<BN>(&o32, b.g, b.x, b.out32, NULL, N, T, 1);
	tl_plan<BN>(&o16, b.g, b.x, b.out16, b.ws16, N, T, 0);
	char config[64];
	snprintf(config, sizeof(config), ", %d pairs + 2 on the last %d K-blocks", 4 * o32.p.tiles,
	         o32.p.tail);
	seg_compare(&b, BN, "tail", config, [&] { seg_pair_launch(&o32.o, &o32.p, 0); },
	            [&] { seg_pair_launch(&o16.o, &o16.p, 0); },
	            rounds, false);
	seg_close(&b);
}

int main(int argc, char **argv)
{
	return seg_main(argc, argv, "tail", run<256>, run<320>);
}
