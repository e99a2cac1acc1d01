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
	const uint32_t full0 = gq_wg_smem_addr(full);
	uint32_t empties[2];
	gq_wg_cluster_bars<2>(gq_wg_smem_addr(empty), empties);
	const uint32_t da0 = gq_wg_desc_lo(gq_wg_smem_addr(smem));
	const uint32_t db0 =
	    gq_wg_desc_lo(gq_wg_smem_addr(smem + C::A_BYTES + (col / 64) * GQ_WG_BOX_BYTES));
	const int warp = (tid % 128) / 32, lane = tid & 31;
	uint32_t parity = 0;
	seg_consume<BN, WN>(acc, sum, (int)n1p, parity, full0, empties, da0, db0, tid);
	/* a test on a value broadcast from lane 0, not a branch ptxas must take as divergent */
	if (__shfl_sync(0xffffffffu, (int)(n2 > 0), 0)) {
#pragma unroll
		for (int j = 0; j < WN / 2; j += 2) {
			const int64_t r = m0 + 16 * warp + lane / 4 + 8 * ((j >> 1) & 1);
			const int64_t c = n0a + col + 8 * (j >> 2) + 2 * (lane % 4);
			atomicAdd(reinterpret_cast<float2 *>(p.sums + r * p.n + c),
			          make_float2(sum[j], sum[j + 1]));
			sum[j] = 0.f, sum[j + 1] = 0.f;
		}
	}
	seg_consume<BN, WN>(acc, sum, (int)n2, parity, full0, empties, da0, db0, tid);
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
			const uint64_t keep = gq_wg_policy_evict_last(), first = gq_wg_policy_evict_first();
			const uint32_t full0 = gq_wg_smem_addr(full), empty0 = gq_wg_smem_addr(empty);
			const uint32_t ring0 = gq_wg_smem_addr(smem);
			int s = 0, i = 0;
			uint32_t parity = 0;
			unsigned *lock = p.lock + (blockIdx.y % 4) * SK_LOCK_EPOCHS;
			/* three runs of K-blocks, each a loop that only steps the row: segment 1, its
			 * padding (rows past K: zeros), segment 2 */
			for (int run = 0; run < 3; run++) {
				const int64_t n_kb = run == 0 ? n1 : run == 1 ? n1p - n1 : n2;
				const int n0 = run == 2 ? n0b : n0a;
				int32_t row = (int32_t)((run == 0 ? k10 : run == 1 ? kb : 0) * GQ_WG_BK);
				const int32_t step = run == 1 ? 0 : GQ_WG_BK;
				for (int64_t t = 0; t < n_kb; t++, i++) {
					if (p.lock_e && i > 0 && i % p.lock_e == 0) {
						const int e = i / p.lock_e;
						if (e <= SK_LOCK_EPOCHS)
							asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(lock + e - 1) : "memory");
						if (e - p.lock_s >= 1 && e - p.lock_s <= SK_LOCK_EPOCHS) {
							unsigned seen;
							do {
								asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(lock + e - p.lock_s - 1) : "memory");
							} while (seen < 32u);
						}
					}
					if (i >= C::STAGES)
						gq_wg_bar_wait(empty0 + 8 * s, parity);
					const uint32_t bar = full0 + 8 * s;
					const uint32_t a = ring0 + (uint32_t)s * C::STAGE_BYTES;
					const uint32_t b = a + C::A_BYTES;
					gq_wg_bar_expect_tx(bar, C::STAGE_BYTES);
					gq_wg_copy_a<64>(a, &map_a, m0, row, bar, keep);
					constexpr int NB = BN / 64, H = (NB + 1) / 2;
#pragma unroll
					for (int cc = mx ? H : 0; cc < (mx ? NB : H); cc++) {
						if (p.x_first)
							gq_wg_tma_load_mc(b + cc * GQ_WG_BOX_BYTES, &map_b,
							                  n0 + 64 * cc, row, bar, (uint16_t)3,
							                  first);
						else
							gq_wg_tma_load_mc_nohint(b + cc * GQ_WG_BOX_BYTES,
							                         &map_b, n0 + 64 * cc, row, bar,
							                         (uint16_t)3);
					}
					row += step;
					gq_wg_next_stage<C::STAGES>(s, parity, i >= C::STAGES);
				}
			}
			/* stay until the partner's consumers have released this CTA's last stages */
			for (int j = i; j < i + C::STAGES; j++) {
				if (j >= C::STAGES)
					gq_wg_bar_wait(empty0 + 8 * s, parity);
				gq_wg_next_stage<C::STAGES>(s, parity, j >= C::STAGES);
			}
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
	CUtensorMap map_a, map_b, map_c;
	sk_params p;
	void *out;
	cudaLaunchConfig_t cfg;
	cudaLaunchAttribute attr;
	const void *func;
};

/* The op for out [128, N] = gᵀ·x, tiles of BN columns, P pairs (SK_PAIRS, default 66). */
template <int BN>
static void sk_plan(sk_op *op, const void *g, const void *x, void *out, float *ws, int64_t N,
                    int64_t T, int out_fp32)
{
	using C = gq_wg_cfg<64, BN>;
	const char *env = getenv("SK_PAIRS");
	const int pairs = env ? atoi(env) : 66;
	PFN_cuTensorMapEncodeTiled_v12000 enc = gq_wg_encoder();
	float *sums = out_fp32 ? static_cast<float *>(out) : ws;
	if (pairs < 1 || gq_wg_encode_one(enc, &op->map_a, g, T, 128, 64, GQ_WG_BK, 0) != CUDA_SUCCESS ||
	    gq_wg_encode_one(enc, &op->map_b, x, T, N, 64, GQ_WG_BK, 1) != CUDA_SUCCESS ||
	    gq_wg_encode_sums(enc, &op->map_c, sums, 128, N) != CUDA_SUCCESS) {
		fprintf(stderr, "SK_PAIRS must be at least 1, and the driver must take the maps\n");
		exit(1);
	}
	op->p.sums = sums;
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
	op->p.lock = reinterpret_cast<unsigned *>(sums + 128 * N); /* the allocation's tail */
	op->out = out;
	op->func = reinterpret_cast<const void *>(sk_kernel<BN>);
	CHECK(cudaFuncSetAttribute(sk_kernel<BN>, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                           (int)C::SMEM));
	memset(&op->cfg, 0, sizeof(op->cfg));
	op->cfg.gridDim = dim3(2, (unsigned)pairs, 1);
	op->cfg.blockDim = dim3(C::THREADS);
	op->cfg.dynamicSmemBytes = C::SMEM;
	op->attr.id = cudaLaunchAttributeClusterDimension;
	op->attr.val.clusterDim.x = 2, op->attr.val.clusterDim.y = 1, op->attr.val.clusterDim.z = 1;
	op->cfg.attrs = &op->attr;
	op->cfg.numAttrs = 1;
	int at_once = 0;
	CHECK(cudaOccupancyMaxActiveClusters(&at_once, sk_kernel<BN>, &op->cfg));
	if (at_once < pairs) {
		fprintf(stderr, "only %d clusters of 2 fit at once; the grid has %d\n", at_once, pairs);
		exit(1);
	}
}

static void sk_launch(sk_op *op)
{
	const int64_t count = op->p.m * op->p.n;
	CHECK(cudaMemsetAsync(op->p.sums, 0,
	                      (size_t)count * 4 + (op->p.lock_e ? 4 * SK_LOCK_EPOCHS * 4 : 0)));
	void *args[] = {&op->map_a, &op->map_b, &op->map_c, &op->p};
	CHECK(cudaLaunchKernelExC(&op->cfg, op->func, args));
	if (op->p.bf16)
		round_launch(op->p.sums, count, op->out);
}

template <int BN> static void run(int64_t N, int64_t T, int rounds, const diag_gpu &gpu)
{
	uint16_t *x, *g;
	CHECK(cudaMalloc(&x, (size_t)T * N * 2));
	CHECK(cudaMalloc(&g, (size_t)T * 128 * 2));
	stream_fill<<<1024, 256>>>(x, T * N, 1);
	stream_fill<<<1024, 256>>>(g, T * 128, 2);
	CHECK(cudaGetLastError());
	const int64_t count = 128 * N;
	float *ref_out, *out32, *ws, *out16, *ws16;
	CHECK(cudaMalloc(&ref_out, count * 4));
	const size_t tail = 4 * SK_LOCK_EPOCHS * sizeof(unsigned); /* SK_LOCK's counters */
	CHECK(cudaMalloc(&out32, count * 4 + tail));
	CHECK(cudaMalloc(&out16, count * 4 + tail));
	CHECK(cudaMalloc(&ws, count * 4 + tail));
	CHECK(cudaMalloc(&ws16, count * 4 + tail));

	/* main's op: gemmq:split:nBN:s4 as kernels.c plans it */
	gq_wg_params wp;
	gq_wg_maps maps, mapsb;
	memset(&maps, 0, sizeof(maps));
	memset(&mapsb, 0, sizeof(mapsb));
	split_plan(&wp, &maps, g, x, ref_out, 128, N, T, 64, BN, 4, gpu.l2, gpu.sms);
	gq_wg_params wpb = wp;
	wpb.out_fp32 = 0, wpb.ws = ws, wpb.out = out16;
	const char *why = "";
	if (gq_wg_encode(&wpb, &mapsb, &why) != cudaSuccess) {
		fprintf(stderr, "%s\n", why);
		exit(1);
	}
	auto main32 = [&](float *out) {
		wp.out = out, wp.ws = out;
		if (gq_wg_encode(&wp, &maps, &why) != cudaSuccess) {
			fprintf(stderr, "%s\n", why);
			exit(1);
		}
		CHECK(cudaMemsetAsync(out, 0, (size_t)count * 4));
		CHECK(gq_wg_launch(&wp, &maps, 0));
	};
	auto main16 = [&] {
		CHECK(cudaMemsetAsync(ws, 0, (size_t)count * 4));
		CHECK(gq_wg_launch(&wpb, &mapsb, 0));
		round_launch(ws, count, out16);
	};
	sk_op o32, o16;
	sk_plan<BN>(&o32, g, x, out32, NULL, N, T, 1);
	sk_plan<BN>(&o16, g, x, out16, ws16, N, T, 0);

	main32(ref_out);
	CHECK(cudaDeviceSynchronize());
	std::vector<float> ref((size_t)count);
	CHECK(cudaMemcpy(ref.data(), ref_out, count * 4, cudaMemcpyDeviceToHost));
	main16();
	CHECK(cudaDeviceSynchronize());
	const double d_main16 = diff(out16, 0, ref);
	sk_launch(&o32);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	const double d32 = diff(out32, 1, ref);
	sk_launch(&o16);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	const double d16 = diff(out16, 0, ref);
	printf("N %lld T %lld tile 64x%d, %d pairs (perm %d, x evict-first %d, lock %d,%d): max |diff| / max |ref| against main's FP32 out: "
	       "sk FP32 %.2e, sk BF16 %.2e, main BF16 %.2e\n",
	       (long long)N, (long long)T, BN, o32.p.pairs, o32.p.perm, o32.p.x_first, o32.p.lock_e,
	       o32.p.lock_s, d32, d16, d_main16);
	const bool ok = d32 < 1e-5 && d16 < 8e-3;
	if (!ok)
		printf("N %lld: WRONG\n", (long long)N);
	for (int r = 0; r < rounds && ok; r++) {
		const float m32 = median_us([&] { main32(out32); });
		const float s32 = median_us([&] { sk_launch(&o32); });
		const float m16 = median_us(main16);
		const float s16 = median_us([&] { sk_launch(&o16); });
		printf("N %lld T %lld round %d: FP32 main %.2f sk %.2f (%.4f)  BF16 main %.2f sk %.2f "
		       "(%.4f) us\n",
		       (long long)N, (long long)T, r, m32, s32, s32 / m32, m16, s16, s16 / m16);
	}
	CHECK(cudaFree(x));
	CHECK(cudaFree(g));
	CHECK(cudaFree(ref_out));
	CHECK(cudaFree(out32));
	CHECK(cudaFree(out16));
	CHECK(cudaFree(ws));
	CHECK(cudaFree(ws16));
}

int main(int argc, char **argv)
{
	const int64_t T = argc > 1 ? atoll(argv[1]) : 65537;
	const int64_t only_n = argc > 2 ? atoll(argv[2]) : 0;
	launches = argc > 3 ? atoi(argv[3]) : 30;
	const int rounds = argc > 4 ? atoi(argv[4]) : 3;
	if (T < 1 || only_n < 0 || launches < 1 || rounds < 0) {
		fprintf(stderr, "usage: sk [T [N [LAUNCHES [ROUNDS]]]]\n");
		return 2;
	}
	const diag_gpu gpu = diag_gpu_open();
	flush_buf = gpu.flush, flush_bytes = gpu.flush_bytes;
	if (!only_n || only_n == 4096)
		run<256>(4096, T, rounds, gpu);
	if (!only_n || only_n == 5120)
		run<320>(5120, T, rounds, gpu);
	return 0;
}
