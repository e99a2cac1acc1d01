/* sk.cu: the split programs of d_out 128 on every SM (twenty-eighth round of
 * ../../wgrad-experiments.md; not part of the build).
 *
 * At 4096x128 (64×256 tiles) and 5120x128 (64×320) main's best split programs are grids of 16 N
 * tiles × 2 M tiles × 4 splits = 128 CTAs, in clusters of two M tiles that share x, and 4 of the
 * H200's 132 SMs stay idle. cl8.cu found these loops paced by each SM as well as by HBM: 120 CTAs
 * doing 16/15 of main's share each took 3.3 % longer. Here the same work is spread over P
 * clusters of two (P = 66: 132 CTAs) in stream-K order: pair p takes K-blocks [p·W/P,
 * (p + 1)·W/P) of the W = 16·kb in tile-major order, which is part of one tile (segment 1) and
 * possibly the start of the next (segment 2). Where a pair has two segments, its sums of the
 * first are added into the FP32 sums by float2 atomics from the registers while the producer
 * already copies the second (segment 1 is padded to whole rounds of the ring with K-blocks past K,
 * which arrive as zeros, so that the second starts at stage 0); the last segment's sums are added
 * as main adds them (gq_wg_reduce_tile: staged in the ring, TMA adds). BF16 out is rounded after
 * the grid as main's is (a programmatic dependent). The producer, ring, copies, multiplies and
 * end are kernels/gemm_wgmma.cu's.
 *
 * The program checks both outputs against main's gemmq:split (FP32 out, the same tile) and times
 * main's op and this one after the harness's flush (CUDA events, medians of LAUNCHES launches,
 * ROUNDS rounds interleaved). SK_PAIRS=P sets P (default 66; 64 is main's count of CTAs);
 * SK_PERM=Q (coprime with P) gives cluster p the chunk p·Q mod P, so that clusters launched one
 * after the other take chunks of different tiles; SK_XFIRST=1 copies x evict-first; SK_LOCK=E,S
 * (64 pairs only) keeps the 32 CTAs of each quarter of K within S epochs of E K-blocks of each
 * other.
 *
 *   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Ikernels -Iharness \
 *        -o build-exp/sk results/h200/logs/wgrad-experiments/round28/sk.cu -lcublasLt
 *   build-exp/sk [T [N [LAUNCHES [ROUNDS]]]]   (T 65537; N 4096 and 5120; 30; 3)
 */
#include "../../../../../kernels/gemm_wgmma.cu"
#include "../diag.h"
#include "../stream.h"
#include "seg.h"

struct sk_params {
	float *sums; /* FP32 [m, n]: the output itself with FP32 out; zeroed */
	int64_t m, n, k;
	int tiles, pairs, bf16;
	int perm; /* pair blockIdx.y takes chunk (blockIdx.y · perm) mod pairs (SK_PERM; default 1) */
	int x_first; /* x's copies evict-first (SK_XFIRST=1), not main's no-hint */
	/* SK_LOCK=E,S (with 64 pairs): the producer counts every E K-blocks into lock[group][epoch]
	 * and waits until the 32 CTAs of its group (its quarter of K: pair % 4) have all counted
	 * epoch e − S before it copies past epoch e; zeroed with the sums */
	int lock_e, lock_s;
	unsigned *lock;
};
#define SK_LOCK_EPOCHS 256

/* Pair p's K-blocks: segment 1 [*k10, *k10 + *n1) of tile *t1, then segment 2 [0, *n2) of tile
 * *t1 + 1 (*n2 may be 0). */
__device__ __forceinline__ void sk_ranges(int p, int pairs, int tiles, int64_t kb, int64_t *t1,
                                          int64_t *k10, int64_t *n1, int64_t *n2)
{
	const int64_t W = (int64_t)tiles * kb, s = p * W / pairs, e = (p + 1) * W / pairs;
	*t1 = s / kb;
	*k10 = s - *t1 * kb;
	const int64_t end1 = e < (*t1 + 1) * kb ? e : (*t1 + 1) * kb;
	*n1 = end1 - s;
	*n2 = e - end1;
}

/* Consumer warpgroup wg, WN columns from col: segment 1 (n1p K-blocks with its padding), its
 * sums added by atomics where segment 2 follows, segment 2 (n2), then the last segment's sums
 * added by the TMA unit at columns from nlast. */
template <int BN, int WN>
__device__ __forceinline__ void sk_consumer(const CUtensorMap *map_c, const sk_params &p,
                                            unsigned char *smem, uint64_t *full, uint64_t *empty,
                                            int64_t n1p, int64_t n2, int m0, int n0a, int nlast,
                                            int wg, int col, int tid)
{
	using C = gq_wg_cfg<64, BN>;
	float acc[WN / 2], sum[WN / 2];
#pragma unroll
	for (int i = 0; i < WN / 2; i++)
		acc[i] = 0.f, sum[i] = 0.f;
	const seg_ring g = seg_ring_of<BN>(smem, full, empty, col, 0);
	uint32_t parity = 0;
	seg_consume<BN, WN>(acc, sum, (int)n1p, parity, g.full0, g.empties, g.da0, g.db0, tid);
	/* a test on a value broadcast from lane 0, not a branch ptxas must take as divergent */
	if (__shfl_sync(0xffffffffu, (int)(n2 > 0), 0))
		seg_add_atomic<WN>(sum, p.sums, p.n, m0, n0a + col, tid);
	seg_consume<BN, WN>(acc, sum, (int)n2, parity, g.full0, g.empties, g.da0, g.db0, tid);
	gq_wg_reduce_tile<WN, C::CONSUMERS * 128>(map_c, smem, wg, (size_t)wg * 64 * C::WN * 4, sum,
	                                          nlast + col, m0);
}

template <int BN>
__global__ void __launch_bounds__(gq_wg_cfg<64, BN>::THREADS, 1)
    sk_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
              const __grid_constant__ CUtensorMap map_c, const sk_params p)
{
	using C = gq_wg_cfg<64, BN>;
	extern __shared__ unsigned char gq_wg_smem_raw[];
	__shared__ __align__(8) uint64_t full[C::STAGES], empty[C::STAGES];
	unsigned char *smem = reinterpret_cast<unsigned char *>(
	    (reinterpret_cast<uintptr_t>(gq_wg_smem_raw) + 1023) & ~(uintptr_t)1023);
	const int tid = threadIdx.x, mx = blockIdx.x;
	if (p.bf16) /* the rounding after it may start: it waits for this grid */
		asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
	const int64_t kb = (p.k + GQ_WG_BK - 1) / GQ_WG_BK;
	int64_t t1, k10, n1, n2;
	sk_ranges((int)(((int64_t)blockIdx.y * p.perm) % p.pairs), p.pairs, p.tiles, kb, &t1, &k10,
	          &n1, &n2);
	const int64_t n1p = n2 > 0 ? (n1 + C::STAGES - 1) / C::STAGES * C::STAGES : n1;
	const int m0 = 64 * mx, n0a = (int)t1 * BN, n0b = n0a + BN;

	gq_wg_ring_init<64, BN, 2>(smem, full, empty, 64, tid);
	gq_wg_cluster_sync();

	if (__shfl_sync(0xffffffffu, tid / 32, 0) >= C::CONSUMERS * 4) {
		if (C::PRODUCER_THREADS == 128)
			asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(C::PRODUCER_REGS));
		if (tid == C::CONSUMERS * 128) {
			unsigned *lock = p.lock + (blockIdx.y % 4) * SK_LOCK_EPOCHS;
			auto before = [&](int i) { /* SK_LOCK: count epoch e − 1, wait for e − S */
				if (!p.lock_e || i == 0 || i % p.lock_e != 0)
					return;
				const int e = i / p.lock_e;
				if (e <= SK_LOCK_EPOCHS)
					asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(lock + e - 1)
					             : "memory");
				if (e - p.lock_s >= 1 && e - p.lock_s <= SK_LOCK_EPOCHS) {
					unsigned seen;
					do {
						asm volatile("ld.acquire.gpu.global.u32 %0, [%1];"
						             : "=r"(seen)
						             : "l"(lock + e - p.lock_s - 1)
						             : "memory");
					} while (seen < 32u);
				}
			};
			/* segment 1, its padding (rows past K: zeros), segment 2 */
			const int64_t n_kb[3] = {n1, n1p - n1, n2}, row0[3] = {k10, kb, 0};
			const int n0[3] = {n0a, n0a, n0b}, step[3] = {1, 0, 1};
			seg_produce<BN>(&map_a, &map_b, full, empty, smem, m0, mx, (uint16_t)3,
			                p.x_first != 0, n_kb, row0, n0, step, before);
		}
		return;
	}
	const int wg = __shfl_sync(0xffffffffu, tid / 128, 0);
	if (C::PRODUCER_THREADS == 128)
		asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(C::CONSUMER_REGS));
	const int col = C::WN * wg, nlast = n2 > 0 ? n0b : n0a;
	if (C::WN_LAST != C::WN && wg == C::CONSUMERS - 1)
		sk_consumer<BN, C::WN_LAST>(&map_c, p, smem, full, empty, n1p, n2, m0, n0a, nlast, wg,
		                            col, tid);
	else
		sk_consumer<BN, C::WN>(&map_c, p, smem, full, empty, n1p, n2, m0, n0a, nlast, wg, col,
		                       tid);
}

/* ---- host ---- */

struct sk_op {
	seg_pair_op o;
	sk_params p;
};

/* The op for out [128, N] = gᵀ·x, tiles of BN columns, P pairs (SK_PAIRS, default 66). */
template <int BN>
static void sk_plan(sk_op *op, const void *g, const void *x, void *out, float *ws, int64_t N,
                    int64_t T, int out_fp32)
{
	const char *env = getenv("SK_PAIRS");
	const int pairs = env ? atoi(env) : 66;
	if (pairs < 1) {
		fprintf(stderr, "SK_PAIRS must be at least 1\n");
		exit(1);
	}
	seg_pair_plan<BN>(&op->o, reinterpret_cast<const void *>(sk_kernel<BN>), g, x, out, ws, N, T,
	                  out_fp32, pairs);
	op->p.sums = op->o.sums;
	op->p.m = 128, op->p.n = N, op->p.k = T;
	op->p.tiles = (int)(N / BN), op->p.pairs = pairs, op->p.bf16 = !out_fp32;
	const char *perm = getenv("SK_PERM");
	op->p.perm = perm ? atoi(perm) : 1; /* coprime with pairs, or chunks are lost */
	const char *xf = getenv("SK_XFIRST");
	op->p.x_first = xf ? atoi(xf) : 0;
	const char *lk = getenv("SK_LOCK");
	op->p.lock_e = 0, op->p.lock_s = 0;
	if (lk && sscanf(lk, "%d,%d", &op->p.lock_e, &op->p.lock_s) != 2)
		op->p.lock_e = 0;
	if (op->p.lock_e && (pairs != 64 || op->p.lock_e < 1 || op->p.lock_s < 1)) {
		fprintf(stderr, "SK_LOCK=E,S needs 64 pairs, E >= 1 and S >= 1\n");
		exit(1);
	}
	op->p.lock = reinterpret_cast<unsigned *>(op->o.sums + 128 * N); /* the allocation's tail */
}

static void sk_launch(sk_op *op)
{
	seg_pair_launch(&op->o, &op->p, op->p.lock_e ? 4 * SK_LOCK_EPOCHS * sizeof(unsigned) : 0);
}

template <int BN> static void run(int64_t N, int64_t T, int rounds, const diag_gpu &gpu)
{
	seg_bench b;
	seg_open<BN>(&b, N, T, 4 * SK_LOCK_EPOCHS * sizeof(unsigned) /* SK_LOCK's counters */, gpu);
	sk_op o32, o16;
	sk_plan<BN>(&o32, b.g, b.x, b.out32, NULL, N, T, 1);
	sk_plan<BN>(&o16, b.g, b.x, b.out16, b.ws16, N, T, 0);
	char config[96];
	snprintf(config, sizeof(config), ", %d pairs (perm %d, x evict-first %d, lock %d,%d)",
	         o32.p.pairs, o32.p.perm, o32.p.x_first, o32.p.lock_e, o32.p.lock_s);
	seg_compare(&b, BN, "sk", config, [&] { sk_launch(&o32); }, [&] { sk_launch(&o16); }, rounds,
	            false);
	seg_close(&b);
}

int main(int argc, char **argv)
{
	return seg_main(argc, argv, "sk", run<256>, run<320>);
}
