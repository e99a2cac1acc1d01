/* cl15-pieces.cu: cl15.cu as calls 2 and 3 of the thirty-ninth round ran it (call 2 without
 * CL15_ALIGN, call 3 with CL15_ALIGN=1; call 1 ran its first state: 64×256 tiles only, d_in a
 * multiple of 256 with at most 15 tiles). cl15.cu went on from here.
 *
 * A gemmq plugin with one GPU program, "cl15", the wgrad GEMM at d_out 128 with its
 * split-K reduced inside the SMs (thirty-ninth round of ../../wgrad-experiments.md; not part of
 * the build).
 *
 * The twenty-eighth round measured an end inside the SMs alone: a tile's four splits and its two
 * M tiles in one cluster of 2 × 1 × 4, each CTA summing 16 rows of its M tile over the four
 * splits from the others' shared memory and storing them, FP32 or BF16. No adds in the L2, no
 * zeroing, no second kernel, the same cost for either out. An H200 holds 15 such clusters at
 * once, and 4096 and 5120 columns make 16 N tiles of 256 and 320, so `cl8.cu` gave the 16th
 * tile's work to the 15 and lost 6-8 % to that schedule. What it did not time is the end on a
 * grid with exactly 15 tiles, where every cluster owns one tile whole and every split reads K in
 * main's quarters. This program is that grid: d_in = 15 × 256 = 3840 (n/256 tiles, as many as
 * fit at once), so it can be set beside gemmq:split:n256:s4 (120 CTAs there, clusters of two)
 * and cuBLASLt's top 8 in `gemmq bench`, with CUPTI spans, graph replays and the L2 flush, and
 * checked by `gemmq accuracy` against the FP64 reference. Whether d_in 4096 and 5120 can be cut
 * into 15 tiles as fast is the next question, asked only if this one answers yes.
 *
 * The producer and consumers are kernels/gemm_wgmma.cu's, through ../round28/seg.h (its ring,
 * descriptors and multiplies), with main's x-first copies (1343065): split z of a tile reads
 * K-blocks [z·kb/4, (z + 1)·kb/4), x's boxes shared by the two M tiles (multicast, no hint).
 *
 *   nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC,-fvisibility=hidden \
 *        -gencode arch=compute_90a,code=sm_90a -Ikernels -Iharness \
 *        -o build-exp/cl15/libcl15.so results/h200/logs/wgrad-experiments/round39/cl15-pieces.cu \
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
	int unit; /* the columns of a cluster start at multiples of unit */
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

/* Cluster c of `clusters` owns the columns [c0, c1) of out: the n columns cut at multiples of
 * unit (8, or 64: whole boxes) as evenly as they go, at most BN each (the width its CTAs
 * multiply). Its CTAs load the boxes of 64 columns that cover [c0, c1): the rest of the last box
 * is the next cluster's, or zeros past n. */
__device__ __forceinline__ int64_t cl15_col(int c, int clusters, int64_t n, int unit)
{
	return unit * ((int64_t)c * (n / unit) / clusters);
}

/* The producer thread: the CTA's nkb K-blocks from row0 through the ring, x's boxes first (this
 * CTA, rank mx of its pair, copies half of them multicast to both CTAs of the pair: mask), g's
 * own box after them (evict-last); then it waits until the pair's consumers have released the
 * last stages, as seg_produce does. */
template <int BN>
__device__ __forceinline__ void cl15_produce(const CUtensorMap *map_a, const CUtensorMap *map_b,
                                             uint64_t *full, uint64_t *empty,
                                             unsigned char *smem, int m0, int mx, uint16_t mask,
                                             int64_t nkb, int64_t row0, int n0, int nb)
{
	using C = gq_wg_cfg<64, BN>;
	const uint64_t keep = gq_wg_policy_evict_last();
	const uint32_t full0 = gq_wg_smem_addr(full), empty0 = gq_wg_smem_addr(empty);
	const uint32_t ring0 = gq_wg_smem_addr(smem);
	int s = 0, i = 0;
	uint32_t parity = 0;
	int32_t row = (int32_t)(row0 * GQ_WG_BK);
	for (int64_t t = 0; t < nkb; t++, i++) {
		if (i >= C::STAGES)
			gq_wg_bar_wait(empty0 + 8 * s, parity);
		const uint32_t bar = full0 + 8 * s;
		const uint32_t a = ring0 + (uint32_t)s * C::STAGE_BYTES;
		const uint32_t b = a + C::A_BYTES;
		gq_wg_bar_expect_tx(bar, C::A_BYTES + nb * GQ_WG_BOX_BYTES);
		const int h = (nb + 1) / 2;
		for (int cc = mx ? h : 0; cc < (mx ? nb : h); cc++)
			gq_wg_tma_load_mc_nohint(b + cc * GQ_WG_BOX_BYTES, map_b, n0 + 64 * cc, row, bar,
			                         mask);
		gq_wg_copy_a<64>(a, map_a, m0, row, bar, keep);
		row += GQ_WG_BK;
		gq_wg_next_stage<C::STAGES>(s, parity, i >= C::STAGES);
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
	const int m0 = 64 * mx;
	const int64_t c0 = cl15_col(c, gridDim.y, p.n, p.unit);
	const int64_t c1 = cl15_col(c + 1, gridDim.y, p.n, p.unit);
	const int nB = (int)c0, W = (int)(c1 - c0);

	gq_wg_ring_init<64, BN, 2>(smem, full, empty, 64, tid);
	gq_wg_cluster_sync();

	if (__shfl_sync(0xffffffffu, tid / 32, 0) >= C::CONSUMERS * 4) {
		if (C::PRODUCER_THREADS == 128)
			asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(C::PRODUCER_REGS));
		if (tid == C::CONSUMERS * 128)
			cl15_produce<BN>(&map_a, &map_b, full, empty, smem, m0, mx,
			                 (uint16_t)(3u << (2 * z)), b1 - b0, b0, nB, (W + 63) / 64);
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
	constexpr int NT = C::CONSUMERS * 128;
	const int Q = W / 4;
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

/* ---- the plugin ---- */

namespace {

/* A width the CTAs load and multiply: its kernel and launch shape. */
struct cl15_variant {
	int bn, threads;
	size_t smem;
	const void *func;
};
template <int BN> cl15_variant variant_of()
{
	using C = gq_wg_cfg<64, BN>;
	return {BN, C::THREADS, C::SMEM, reinterpret_cast<const void *>(cl15_kernel<BN>)};
}

struct cl15_instance {
	gemmq_problem p;
	CUtensorMap map_a, map_b;
	const void *a, *b; /* the operands the maps were encoded for */
	cl15_params prm;
	const void *func;
	cudaLaunchConfig_t cfg;
	cudaLaunchAttribute attr;
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
	if (p->op != 2 || p->in_dtype != 0 || p->m != 128 || p->n % 8 != 0 || p->k < 1 ||
	    p->a_trans != 1 || p->b_trans != 0) {
		snprintf(msg, size, "cl15: wgrad, BF16 in, d_out 128, d_in a multiple of 8 only");
		return GEMMQ_UNSUPPORTED;
	}
	return 0;
}

/* The narrowest width whose clusters of 2 × 1 × 4, as many as fit at once (at most n / unit),
 * cut n into pieces of at most that width; CL15_BN=256|320|384 asks for one, CL15_ALIGN=1 for
 * pieces of whole boxes (unit 64, where n allows). */
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
	const char *want = getenv("CL15_BN"), *align = getenv("CL15_ALIGN");
	const int unit = align && atoi(align) && p->n % 64 == 0 ? 64 : 8;
	int64_t clusters = 0;
	for (const cl15_variant &v : variants) {
		if (want && atoi(want) != v.bn)
			continue;
		e = cudaFuncSetAttribute(v.func, cudaFuncAttributeMaxDynamicSharedMemorySize,
		                         (int)v.smem);
		if (e != cudaSuccess) {
			free(in);
			return fail(msg, size, 3, "cudaFuncSetAttribute", e);
		}
		memset(&in->cfg, 0, sizeof(in->cfg));
		in->cfg.gridDim = dim3(2, 1, 4);
		in->cfg.blockDim = dim3((unsigned)v.threads);
		in->cfg.dynamicSmemBytes = v.smem;
		in->attr.id = cudaLaunchAttributeClusterDimension;
		in->attr.val.clusterDim.x = 2, in->attr.val.clusterDim.y = 1;
		in->attr.val.clusterDim.z = 4;
		in->cfg.attrs = &in->attr;
		in->cfg.numAttrs = 1;
		int at_once = 0;
		e = cudaOccupancyMaxActiveClusters(&at_once, v.func, &in->cfg);
		if (e != cudaSuccess) {
			free(in);
			return fail(msg, size, 3, "cudaOccupancyMaxActiveClusters", e);
		}
		clusters = std::min<int64_t>(at_once, p->n / unit);
		if (clusters >= 1 && unit * ((p->n / unit + clusters - 1) / clusters) <= v.bn) {
			in->func = v.func;
			break;
		}
	}
	if (!in->func) {
		snprintf(msg, size, "cl15: %lld columns do not fit the clusters that fit at once",
		         (long long)p->n);
		free(in);
		return GEMMQ_UNSUPPORTED;
	}
	in->cfg.gridDim = dim3(2, (unsigned)clusters, 4);
	in->prm.n = p->n, in->prm.k = p->k, in->prm.out_fp32 = p->out_dtype == 1;
	in->prm.unit = unit;
	if ((rc = encode(in, io->a, io->b, msg, size)) != 0) {
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
	in->cfg.stream = static_cast<cudaStream_t>(stream);
	void *args[] = {&in->map_a, &in->map_b, &in->prm};
	cudaError_t e = cudaLaunchKernelExC(&in->cfg, in->func, args);
	if (e == cudaSuccess)
		e = cudaGetLastError();
	return e == cudaSuccess ? 0 : fail(msg, size, 3, "the launch", e);
}

void cl15_release(void *instance) { free(instance); }

const gemmq_program programs[] = {{
    GEMMQ_PROGRAM_ABI_VERSION,
    "cl15",
    "wgrad d_out 128: 15 tiles of n/15 columns, 4 splits summed in the SMs (clusters of 2x1x4)",
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
