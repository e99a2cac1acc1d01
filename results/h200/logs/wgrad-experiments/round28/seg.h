/* seg.h: what cl8.cu and sk.cu (twenty-eighth round) share: the consumers' loop over a segment
 * of K-blocks that starts at stage 0 of the ring with either parity (kernels/gemm_wgmma.cu's
 * gq_wg_consume with the parity carried in and out), the store of four sums (FP32 or rounded to
 * BF16), main's rounding of BF16 out as a programmatic dependent, the comparison of an output
 * with a reference, and the bench of an op against main's (seg_bench: operands, main's op,
 * checks and timed rounds). Include it after kernels/gemm_wgmma.cu, ../diag.h and ../stream.h. */
#pragma once

/* gq_wg_consume for nkb K-blocks from stage 0 with parity par (the other after an odd number of
 * whole rounds); par comes back as the next segment's. */
template <int BN, int WN>
__device__ __forceinline__ void seg_consume(float (&acc)[WN / 2], float (&sum)[WN / 2], int nkb,
                                            uint32_t &par_io, uint32_t full0,
                                            const uint32_t (&empties)[2], uint32_t da0,
                                            uint32_t db0, int tid)
{
	using C = gq_wg_cfg<64, BN>;
	constexpr int S = C::STAGES;
	auto kblock = [&](int s, uint32_t parity, int first) {
		gq_wg_bar_wait(full0 + 8 * s, parity);
		const uint32_t step = (uint32_t)(s * C::STAGE_BYTES) >> 4;
		if (C::PIPE) {
			gq_wg_issue_stage<WN>(acc, da0 + step, db0 + step, first);
			if (!first) {
				gq_wg_wait_one();
				gq_wg_release<2>(empties, 8 * ((s + S - 1) % S), tid);
			}
		} else {
			gq_wg_multiply_stage<WN>(acc, da0 + step, db0 + step, first);
			gq_wg_release<2>(empties, 8 * s, tid);
		}
	};
	auto close = [&](int s) {
		if (C::PIPE) {
			gq_wg_drain<WN>(acc);
			gq_wg_release<2>(empties, 8 * s, tid);
		}
#pragma unroll
		for (int j = 0; j < WN / 2; j++)
			sum[j] = __fadd_rn(sum[j], acc[j]);
	};
	const int rounds = nkb / S, rest = nkb % S;
	uint32_t parity = par_io;
	int c = 0;
	for (int r = 0; r < rounds; r++, parity ^= 1) {
		const int fresh = c == 0;
#pragma unroll
		for (int t = 0; t < S; t++)
			kblock(t, parity, t == 0 && fresh);
		if (++c == C::CHUNK_ROUNDS) {
			c = 0;
			close(S - 1);
		}
	}
#pragma unroll
	for (int t = 0; t < S - 1; t++) {
		if (t >= rest)
			break;
		kblock(t, parity, t == 0 && c == 0);
	}
	if (c != 0 || rest > 0)
		close(rest > 0 ? rest - 1 : S - 1);
	par_io = parity;
}

/* A consumer warpgroup's view of the ring of a pair's CTA: its first full barrier, the first
 * empty barrier of the pair's two CTAs (cluster ranks rank0 and rank0 + 1), and the low words of
 * its A and B descriptors in stage 0 (B from column col of the tile). */
struct seg_ring {
	uint32_t full0, empties[2], da0, db0;
};
template <int BN>
__device__ __forceinline__ seg_ring seg_ring_of(unsigned char *smem, uint64_t *full,
                                                uint64_t *empty, int col, uint32_t rank0)
{
	using C = gq_wg_cfg<64, BN>;
	seg_ring r;
	r.full0 = gq_wg_smem_addr(full);
	const uint32_t empty0 = gq_wg_smem_addr(empty);
#pragma unroll
	for (int i = 0; i < 2; i++)
		asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
		             : "=r"(r.empties[i])
		             : "r"(empty0), "r"(rank0 + (uint32_t)i));
	r.da0 = gq_wg_desc_lo(gq_wg_smem_addr(smem));
	r.db0 = gq_wg_desc_lo(gq_wg_smem_addr(smem + C::A_BYTES + (col / 64) * GQ_WG_BOX_BYTES));
	return r;
}

/* The producer thread of cl8, sk and tail: R runs of K-blocks through the ring (run i: n_kb[i]
 * K-blocks from row row0[i], the row stepped by step[i] after each, 0 for padding that copies rows
 * past K, at x's columns from n0[i]), each stage g's own box (evict-last) and x's boxes, this
 * CTA (rank mx of its pair) copying its half of them multicast to both CTAs of the pair (mask),
 * evict-first where x_first, else with no hint (main's); before each K-block i, before(i) (sk's
 * lock); then it stays until the partner's consumers have released this CTA's last stages (the
 * waits the loop would make for the next STAGES K-blocks). */
template <int BN, int R, typename F>
__device__ __forceinline__ void seg_produce(const CUtensorMap *map_a, const CUtensorMap *map_b,
                                            uint64_t *full, uint64_t *empty, unsigned char *smem,
                                            int m0, int mx, uint16_t mask, bool x_first,
                                            const int64_t (&n_kb)[R], const int64_t (&row0)[R],
                                            const int (&n0)[R], const int (&step)[R], F before)
{
	using C = gq_wg_cfg<64, BN>;
	const uint64_t keep = gq_wg_policy_evict_last(), first = gq_wg_policy_evict_first();
	const uint32_t full0 = gq_wg_smem_addr(full), empty0 = gq_wg_smem_addr(empty);
	const uint32_t ring0 = gq_wg_smem_addr(smem);
	int s = 0, i = 0;
	uint32_t parity = 0;
	for (int run = 0; run < R; run++) { /* each a loop that only steps the row, as main's */
		int32_t row = (int32_t)(row0[run] * GQ_WG_BK);
		const int32_t dr = step[run] * GQ_WG_BK;
		for (int64_t t = 0; t < n_kb[run]; t++, i++) {
			before(i);
			if (i >= C::STAGES)
				gq_wg_bar_wait(empty0 + 8 * s, parity);
			const uint32_t bar = full0 + 8 * s;
			const uint32_t a = ring0 + (uint32_t)s * C::STAGE_BYTES;
			const uint32_t b = a + C::A_BYTES;
			gq_wg_bar_expect_tx(bar, C::STAGE_BYTES);
			gq_wg_copy_a<64>(a, map_a, m0, row, bar, keep);
			constexpr int NB = BN / 64, H = (NB + 1) / 2;
#pragma unroll
			for (int cc = mx ? H : 0; cc < (mx ? NB : H); cc++) {
				if (x_first)
					gq_wg_tma_load_mc(b + cc * GQ_WG_BOX_BYTES, map_b, n0[run] + 64 * cc,
					                  row, bar, mask, first);
				else
					gq_wg_tma_load_mc_nohint(b + cc * GQ_WG_BOX_BYTES, map_b,
					                         n0[run] + 64 * cc, row, bar, mask);
			}
			row += dr;
			gq_wg_next_stage<C::STAGES>(s, parity, i >= C::STAGES);
		}
	}
	for (int j = i; j < i + C::STAGES; j++) {
		if (j >= C::STAGES)
			gq_wg_bar_wait(empty0 + 8 * s, parity);
		gq_wg_next_stage<C::STAGES>(s, parity, j >= C::STAGES);
	}
}

/* A consumer thread's sums (gq_wg_consumer's accumulator layout: its warpgroup's 64 rows from
 * row m0, its columns from c0) added into the FP32 sums [·, n] by float2 atomics, then zeroed. */
template <int WN>
__device__ __forceinline__ void seg_add_atomic(float (&sum)[WN / 2], float *sums, int64_t n,
                                               int m0, int64_t c0, int tid)
{
	const int warp = (tid % 128) / 32, lane = tid & 31;
#pragma unroll
	for (int j = 0; j < WN / 2; j += 2) {
		const int64_t r = m0 + 16 * warp + lane / 4 + 8 * ((j >> 1) & 1);
		const int64_t c = c0 + 8 * (j >> 2) + 2 * (lane % 4);
		atomicAdd(reinterpret_cast<float2 *>(sums + r * n + c), make_float2(sum[j], sum[j + 1]));
		sum[j] = 0.f, sum[j + 1] = 0.f;
	}
}

__device__ __forceinline__ void seg_store4(void *out, int out_fp32, int64_t at, float4 a)
{
	if (out_fp32) {
		*reinterpret_cast<float4 *>(static_cast<float *>(out) + at) = a;
		return;
	}
	__nv_bfloat162 lo = __floats2bfloat162_rn(a.x, a.y), hi = __floats2bfloat162_rn(a.z, a.w);
	uint2 bits;
	bits.x = *reinterpret_cast<uint32_t *>(&lo);
	bits.y = *reinterpret_cast<uint32_t *>(&hi);
	*reinterpret_cast<uint2 *>(static_cast<__nv_bfloat16 *>(out) + at) = bits;
}


/* ---- host ---- */

/* gq_mma_reduce_kernel with one slice: FP32 sums → BF16 out, as main's programmatic dependent. */
__global__ void seg_round(const float *ws, int64_t count, __nv_bfloat16 *out)
{
	asm volatile("griddepcontrol.wait;" ::: "memory");
	for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < count / 4;
	     q += (int64_t)gridDim.x * blockDim.x)
		seg_store4(out, 0, 4 * q, reinterpret_cast<const float4 *>(ws)[q]);
}

static void round_launch(const float *ws, int64_t count, void *out)
{
	const int64_t quads = count / 4;
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3((unsigned)std::min<int64_t>(4096, (quads + 255) / 256));
	cfg.blockDim = dim3(256);
	cudaLaunchAttribute attr;
	attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
	attr.val.programmaticStreamSerializationAllowed = 1;
	cfg.attrs = &attr;
	cfg.numAttrs = 1;
	CHECK(cudaLaunchKernelEx(&cfg, seg_round, ws, count, static_cast<__nv_bfloat16 *>(out)));
}

/* max |got − ref| / max |ref| over [128, N]: got FP32 or BF16. */
static double diff(const void *got, int fp32, const std::vector<float> &ref)
{
	const size_t n = ref.size();
	std::vector<float> h(n);
	if (fp32) {
		CHECK(cudaMemcpy(h.data(), got, n * 4, cudaMemcpyDeviceToHost));
	} else {
		std::vector<uint16_t> b(n);
		CHECK(cudaMemcpy(b.data(), got, n * 2, cudaMemcpyDeviceToHost));
		for (size_t i = 0; i < n; i++) {
			uint32_t u = (uint32_t)b[i] << 16;
			memcpy(&h[i], &u, 4);
		}
	}
	return max_rel(h, ref);
}


/* A comparison with main's op at [128, N] and T: x [T, N] and g [T, 128] hashed (stream_fill,
 * seeds 1 and 2); main's gemmq:split:nBN:s4 as kernels.c plans it, FP32 out (the sums straight
 * into it) and BF16 out (through ws, rounded by round_launch); FP32 and BF16 outputs for the op
 * (out32, out16) and two workspaces (ws, ws16), each `tail` bytes longer than the sums for the
 * op's counters. */
struct seg_bench {
	uint16_t *x, *g;
	float *ref_out, *out32, *out16, *ws, *ws16;
	int64_t N, T, count;
	gq_wg_params wp, wpb;
	gq_wg_maps maps, mapsb;
};

static void seg_encode(gq_wg_params *p, gq_wg_maps *maps)
{
	const char *why = "";
	if (gq_wg_encode(p, maps, &why) != cudaSuccess) {
		fprintf(stderr, "%s\n", why);
		exit(1);
	}
}

template <int BN>
static void seg_open(seg_bench *b, int64_t N, int64_t T, size_t tail, const diag_gpu &gpu)
{
	b->N = N, b->T = T, b->count = 128 * N;
	CHECK(cudaMalloc(&b->x, (size_t)T * N * 2));
	CHECK(cudaMalloc(&b->g, (size_t)T * 128 * 2));
	stream_fill<<<1024, 256>>>(b->x, T * N, 1);
	stream_fill<<<1024, 256>>>(b->g, T * 128, 2);
	CHECK(cudaGetLastError());
	const size_t bytes = (size_t)b->count * 4;
	CHECK(cudaMalloc(&b->ref_out, bytes));
	CHECK(cudaMalloc(&b->out32, bytes + tail));
	CHECK(cudaMalloc(&b->out16, bytes + tail));
	CHECK(cudaMalloc(&b->ws, bytes + tail));
	CHECK(cudaMalloc(&b->ws16, bytes + tail));
	memset(&b->maps, 0, sizeof(b->maps));
	memset(&b->mapsb, 0, sizeof(b->mapsb));
	split_plan(&b->wp, &b->maps, b->g, b->x, b->ref_out, 128, N, T, 64, BN, 4, gpu.l2,
	           gpu.sms);
	b->wpb = b->wp;
	b->wpb.out_fp32 = 0, b->wpb.ws = b->ws, b->wpb.out = b->out16;
	seg_encode(&b->wpb, &b->mapsb);
}

/* main's op with FP32 out into out, and with BF16 out into out16 */
static void seg_main32(seg_bench *b, float *out)
{
	b->wp.out = out, b->wp.ws = out;
	seg_encode(&b->wp, &b->maps);
	CHECK(cudaMemsetAsync(out, 0, (size_t)b->count * 4));
	CHECK(gq_wg_launch(&b->wp, &b->maps, 0));
}
static void seg_main16(seg_bench *b)
{
	CHECK(cudaMemsetAsync(b->ws, 0, (size_t)b->count * 4));
	CHECK(gq_wg_launch(&b->wpb, &b->mapsb, 0));
	round_launch(b->ws, b->count, b->out16);
}

/* The op called name (op32 and op16 launch it with FP32 out into out32 and BF16 out into
 * out16) against main's: both outputs against main's FP32 out, then `rounds` rounds of the four
 * timed (median_us), unless an output is wrong where it should not be (wrong_ok: a probe whose
 * outputs are not meant to be right). config is printed after the tile. */
template <typename F32, typename F16>
static void seg_compare(seg_bench *b, int bn, const char *name, const char *config, F32 op32,
                        F16 op16, int rounds, bool wrong_ok)
{
	const long long N = (long long)b->N, T = (long long)b->T;
	seg_main32(b, b->ref_out);
	CHECK(cudaDeviceSynchronize());
	std::vector<float> ref((size_t)b->count);
	CHECK(cudaMemcpy(ref.data(), b->ref_out, b->count * 4, cudaMemcpyDeviceToHost));
	seg_main16(b);
	CHECK(cudaDeviceSynchronize());
	const double d_main16 = diff(b->out16, 0, ref);
	op32();
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	const double d32 = diff(b->out32, 1, ref);
	op16();
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	const double d16 = diff(b->out16, 0, ref);
	printf("N %lld T %lld tile 64x%d%s: max |diff| / max |ref| against main's FP32 out: %s FP32 "
	       "%.2e, %s BF16 %.2e, main BF16 %.2e\n",
	       N, T, bn, config, name, d32, name, d16, d_main16);
	const bool ok = (d32 < 1e-5 && d16 < 8e-3) || wrong_ok;
	if (!ok)
		printf("N %lld: WRONG\n", N);
	for (int r = 0; r < rounds && ok; r++) {
		const float m32 = median_us([&] { seg_main32(b, b->out32); });
		const float o32 = median_us(op32);
		const float m16 = median_us([&] { seg_main16(b); });
		const float o16 = median_us(op16);
		printf("N %lld T %lld round %d: FP32 main %.2f %s %.2f (%.4f)  BF16 main %.2f %s %.2f "
		       "(%.4f) us\n",
		       N, T, r, m32, name, o32, o32 / m32, m16, name, o16, o16 / m16);
	}
}

static void seg_close(seg_bench *b)
{
	CHECK(cudaFree(b->x));
	CHECK(cudaFree(b->g));
	CHECK(cudaFree(b->ref_out));
	CHECK(cudaFree(b->out32));
	CHECK(cudaFree(b->out16));
	CHECK(cudaFree(b->ws));
	CHECK(cudaFree(b->ws16));
}

/* An op on a grid of `pairs` clusters of two M tiles (CTAs of 64×BN) of func, whose arguments
 * are the maps of g, x and the FP32 sums, then its own parameters: with FP32 out the sums are the
 * output, with BF16 out a workspace that round_launch rounds into it. */
struct seg_pair_op {
	CUtensorMap map_a, map_b, map_c;
	float *sums;
	void *out;
	int64_t count;
	int bf16;
	cudaLaunchConfig_t cfg;
	cudaLaunchAttribute attr;
	const void *func;
};

/* Exits when the driver refuses a map or the clusters do not all fit at once. */
template <int BN>
static void seg_pair_plan(seg_pair_op *op, const void *func, const void *g, const void *x,
                          void *out, float *ws, int64_t N, int64_t T, int out_fp32, int pairs)
{
	using C = gq_wg_cfg<64, BN>;
	PFN_cuTensorMapEncodeTiled_v12000 enc = gq_wg_encoder();
	op->sums = out_fp32 ? static_cast<float *>(out) : ws;
	op->out = out, op->count = 128 * N, op->bf16 = !out_fp32;
	if (gq_wg_encode_one(enc, &op->map_a, g, T, 128, 64, GQ_WG_BK, 0) != CUDA_SUCCESS ||
	    gq_wg_encode_one(enc, &op->map_b, x, T, N, 64, GQ_WG_BK, 1) != CUDA_SUCCESS ||
	    gq_wg_encode_sums(enc, &op->map_c, op->sums, 128, N) != CUDA_SUCCESS) {
		fprintf(stderr, "cuTensorMapEncodeTiled refused a map\n");
		exit(1);
	}
	op->func = func;
	CHECK(cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)C::SMEM));
	memset(&op->cfg, 0, sizeof(op->cfg));
	op->cfg.gridDim = dim3(2, (unsigned)pairs, 1);
	op->cfg.blockDim = dim3(C::THREADS);
	op->cfg.dynamicSmemBytes = C::SMEM;
	op->attr.id = cudaLaunchAttributeClusterDimension;
	op->attr.val.clusterDim.x = 2, op->attr.val.clusterDim.y = 1, op->attr.val.clusterDim.z = 1;
	op->cfg.attrs = &op->attr;
	op->cfg.numAttrs = 1;
	int at_once = 0;
	CHECK(cudaOccupancyMaxActiveClusters(&at_once, func, &op->cfg));
	if (at_once < pairs) {
		fprintf(stderr, "only %d clusters of 2 fit at once; the grid has %d\n", at_once, pairs);
		exit(1);
	}
}

/* The sums zeroed (and `extra` bytes after them: the op's counters), the kernel with params,
 * and with BF16 out the rounding. */
static void seg_pair_launch(seg_pair_op *op, void *params, size_t extra)
{
	CHECK(cudaMemsetAsync(op->sums, 0, (size_t)op->count * 4 + extra));
	void *args[] = {&op->map_a, &op->map_b, &op->map_c, params};
	CHECK(cudaLaunchKernelExC(&op->cfg, op->func, args));
	if (op->bf16)
		round_launch(op->sums, op->count, op->out);
}

/* The main of cl8, sk and tail: [T [N [LAUNCHES [ROUNDS]]]] (T 65537; N 4096 and 5120, the 64×256 and
 * 64×320 tiles; 30 launches a median; 3 rounds), exit status 2 with a usage line when one is out
 * of range. */
static int seg_main(int argc, char **argv, const char *name,
                    void (*run256)(int64_t, int64_t, int, const diag_gpu &),
                    void (*run320)(int64_t, int64_t, int, const diag_gpu &))
{
	const int64_t T = argc > 1 ? atoll(argv[1]) : 65537;
	const int64_t only_n = argc > 2 ? atoll(argv[2]) : 0;
	launches = argc > 3 ? atoi(argv[3]) : 30;
	const int rounds = argc > 4 ? atoi(argv[4]) : 3;
	if (T < 1 || only_n < 0 || launches < 1 || rounds < 0) {
		fprintf(stderr, "usage: %s [T [N [LAUNCHES [ROUNDS]]]]\n", name);
		return 2;
	}
	const diag_gpu gpu = diag_gpu_open();
	flush_buf = gpu.flush, flush_bytes = gpu.flush_bytes;
	if (!only_n || only_n == 4096)
		run256(4096, T, rounds, gpu);
	if (!only_n || only_n == 5120)
		run320(5120, T, rounds, gpu);
	return 0;
}
