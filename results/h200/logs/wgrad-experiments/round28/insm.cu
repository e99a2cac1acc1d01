/* insm.cu: the end of a split program at d_out 128, with nothing else in the kernel (twenty-eighth
 * round of ../../wgrad-experiments.md).
 *
 * main's end (`adds`): 128 CTAs (2 M tiles × 16 N tiles × 4 splits, clusters of 2 along M, the
 * grid of gemmq:split:n256:s4 at 4096x128; 64 × 320 tiles for n320:s4 at 5120x128), each with
 * its FP32 sums in the registers of two consumer warpgroups as the kernel's accumulator layout
 * holds them, added into the FP32 sums by kernels/gemm_wgmma.cu's own gq_wg_reduce_tile (staged
 * in shared memory, TMA adds, waited for); with BF16 out a programmatic dependent then rounds the
 * sums into out as gq_mma_reduce_kernel does (float4 loads, 256 threads a block, one float4 a
 * thread).
 *
 * An end inside the SMs: 120 CTAs in clusters of 2 × 1 × 4 (the two M tiles that share x and the
 * tile's four splits; an H200 holds 15 such clusters at once, round 16), each CTA with its 64 × W
 * sums, CTA (m, z) summing rows [16z, 16z + 16) of M tile m over the four splits in split order
 * and storing them, FP32 or rounded to BF16: no memset, no adds, no second kernel. Three ways:
 * `pull` (end_insm: every CTA stores its sums in its own shared memory, the cluster waits, each
 * reads the others' and the cluster waits again before any leaves), `push` (end_push: each warp
 * stores its rows straight into the owner's shared memory, one wait) and `bulk` (end_bulk: the
 * rows copied into the owners by cp.async.bulk, shared::cta to shared::cluster, completing on the
 * owner's barrier). `empty`: the two grids with nothing but a wait.
 *
 * Each CTA stamps %globaltimer when it starts and when its last store is done (its adds waited
 * for, or a fence after its stores), and marks when it is past its wait and its loop of loads and
 * stores; an op's span is its first start to its last end. The ops run back to back on one
 * stream, each after the previous has finished; the memset of the sums before main's end (0.2-0.3
 * % of the op in the eleventh round) is outside the span. The sums are the same hashed values for
 * every end, and every op's output is checked against the host's sum.
 *
 *   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Ikernels -Iharness \
 *        -o build-exp/insm results/h200/logs/wgrad-experiments/round28/insm.cu
 *   build-exp/insm [LAUNCHES]   (default 200)
 */
#include "../../../../../kernels/gemm_wgmma.cu"
#include "../diag.h"

#include <cooperative_groups.h>

#include <algorithm>
#include <vector>

namespace cg = cooperative_groups;

#define THREADS 288 /* two consumer warpgroups and a producer warp, as the 64x256 kernel */
#define SMEM_BYTES (200 * 1024)

/* The sum of split z at row r, column c of the [128, N] output: small exact values. */
__host__ __device__ inline float part_value(int r, int c, int z)
{
	return (float)((r * 131 + c * 7 + z * 17) % 97 - 48) * (1.f / 64.f);
}

__device__ __forceinline__ uint64_t now_ns()
{
	uint64_t t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* stamps[0]: the first start (min), stamps[1]: the last end (max); stamps[2] and [3]: the last
 * CTA past a kernel's wait (the cluster's, or the dependent's for the grid before it) and past
 * its loop of loads and stores (mark). */
__device__ __forceinline__ void stamp(unsigned long long *stamps, uint64_t t0)
{
	atomicMin(stamps, (unsigned long long)t0);
	atomicMax(stamps + 1, (unsigned long long)now_ns());
}
__device__ __forceinline__ void mark(unsigned long long *stamps, int i, uint64_t t)
{
	atomicMax(stamps + i, (unsigned long long)t);
}

/* The end of a CTA that started at t0 and was past its wait at t1, now past its loop: its
 * stores fenced, its threads waited for (CLUSTER: its cluster's, so that nobody reads its shared
 * memory any more and every copy out of it has landed), then thread 0's stamps. */
template <bool CLUSTER>
__device__ __forceinline__ void finish(unsigned long long *stamps, uint64_t t0, uint64_t t1)
{
	const uint64_t t2 = now_ns();
	__threadfence();
	if (CLUSTER)
		cg::this_cluster().sync();
	else
		__syncthreads();
	if (threadIdx.x == 0) {
		stamp(stamps, t0);
		mark(stamps, 2, t1);
		mark(stamps, 3, t2);
	}
}

/* out[at .. at + 3] = a, FP32 or rounded to BF16 (as gq_mma_store4). */
__device__ __forceinline__ void store_quad(void *out, int64_t at, float4 a, int bf16)
{
	if (bf16) {
		__nv_bfloat162 lo = __floats2bfloat162_rn(a.x, a.y), hi = __floats2bfloat162_rn(a.z, a.w);
		uint2 bits;
		bits.x = *reinterpret_cast<uint32_t *>(&lo);
		bits.y = *reinterpret_cast<uint32_t *>(&hi);
		*reinterpret_cast<uint2 *>(static_cast<__nv_bfloat16 *>(out) + at) = bits;
	} else {
		*reinterpret_cast<float4 *>(static_cast<float *>(out) + at) = a;
	}
}

/* A consumer thread's WN/2 sums of split z in the accumulator layout of gq_wg_consumer: sum j of
 * lane l in warp w is row 16w + l/4 + 8·((j/2) % 2), column 8·(j/4) + 2·(l % 4) + j % 2 of the
 * warpgroup's 64 × WN block, whose first row and column are m0, c0 in the output. */
template <int WN>
__device__ __forceinline__ void fill_sums(float (&sum)[WN / 2], int m0, int c0, int z, int tid)
{
	const int warp = (tid % 128) / 32, lane = tid & 31;
#pragma unroll
	for (int j = 0; j < WN / 2; j++) {
		const int r = m0 + 16 * warp + lane / 4 + 8 * ((j >> 1) & 1);
		const int c = c0 + 8 * (j >> 2) + 2 * (lane % 4) + (j & 1);
		sum[j] = part_value(r, c, z);
	}
}

/* A consumer thread's sums (fill_sums of split z, its warpgroup's block at columns WN·wg of the
 * tile) stored as float2 pairs into to[r·LD + c], r its row of the tile less row0 (16·warp: the
 * warp's 16 rows as rows 0-15 of `to`; 0: the tile's 64 rows). */
template <int WN>
__device__ __forceinline__ void store_sums(float *to, int LD, int m0, int n0, int z, int tid,
                                           int row0)
{
	const int wg = tid / 128, warp = (tid % 128) / 32, lane = tid & 31;
	float sum[WN / 2];
	fill_sums<WN>(sum, m0, n0 + WN * wg, z, tid);
#pragma unroll
	for (int j = 0; j < WN / 2; j += 2) {
		const int r = 16 * warp + lane / 4 + 8 * ((j >> 1) & 1) - row0;
		const int c = WN * wg + 8 * (j >> 2) + 2 * (lane % 4);
		*reinterpret_cast<float2 *>(to + r * LD + c) = make_float2(sum[j], sum[j + 1]);
	}
}

/* main's end: grid (2, N / (2·WN), 4), clusters of 2 along x. */
template <int WN>
__global__ void __launch_bounds__(THREADS, 1)
    end_adds(const __grid_constant__ CUtensorMap map_c, int bf16, unsigned long long *stamps)
{
	const uint64_t t0 = now_ns();
	extern __shared__ unsigned char raw[];
	unsigned char *smem = reinterpret_cast<unsigned char *>(
	    (reinterpret_cast<uintptr_t>(raw) + 1023) & ~(uintptr_t)1023);
	if (bf16)
		asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
	const int tid = threadIdx.x;
	if (tid >= 256)
		return; /* the producer warp has nothing to copy */
	const int wg = tid / 128, m0 = blockIdx.x * 64, n0 = blockIdx.y * 2 * WN;
	float sum[WN / 2];
	fill_sums<WN>(sum, m0, n0 + WN * wg, blockIdx.z, tid);
	gq_wg_reduce_tile<WN, 256>(&map_c, smem, wg, (size_t)wg * 64 * WN * 4, sum, n0 + WN * wg,
	                           m0);
	if (tid % 128 == 0) /* its warpgroup's adds are done */
		stamp(stamps, t0);
}

/* gq_mma_reduce_kernel with one slice (FP32 → BF16), stamped after a fence over its stores. */
__global__ void round_bf16(const float *ws, int64_t count, __nv_bfloat16 *out,
                           unsigned long long *stamps)
{
	const uint64_t t0 = now_ns();
	asm volatile("griddepcontrol.wait;" ::: "memory");
	const uint64_t t1 = now_ns();
	const int64_t quads = count / 4;
	for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < quads;
	     q += (int64_t)gridDim.x * blockDim.x) {
		const float4 v = reinterpret_cast<const float4 *>(ws)[q];
		__nv_bfloat162 lo = __floats2bfloat162_rn(v.x, v.y), hi = __floats2bfloat162_rn(v.z, v.w);
		uint2 bits;
		bits.x = *reinterpret_cast<uint32_t *>(&lo);
		bits.y = *reinterpret_cast<uint32_t *>(&hi);
		*reinterpret_cast<uint2 *>(out + 4 * q) = bits;
	}
	finish<false>(stamps, t0, t1);
}

/* The in-SM end: grid (2, tiles, 4), clusters of (2, 1, 4); W = 2·WN columns a tile; the output
 * [128, N] with N = tiles·W, FP32 or BF16. */
template <int WN>
__global__ void __launch_bounds__(THREADS, 1)
    end_insm(void *out, int64_t n, int bf16, unsigned long long *stamps)
{
	constexpr int W = 2 * WN, LD = W + 4; /* a row of the shared sums, padded by 16 bytes */
	const uint64_t t0 = now_ns();
	extern __shared__ unsigned char raw[];
	float *sums = reinterpret_cast<float *>(
	    (reinterpret_cast<uintptr_t>(raw) + 1023) & ~(uintptr_t)1023);
	cg::cluster_group cluster = cg::this_cluster();
	const int tid = threadIdx.x, mx = blockIdx.x, z = blockIdx.z;
	const int m0 = mx * 64, n0 = blockIdx.y * W;
	if (tid < 256)
		store_sums<WN>(sums, LD, m0, n0, z, tid, 0);
	cluster.sync(); /* every CTA's sums in its shared memory */
	const uint64_t t1 = now_ns();
	const float *src[4];
	for (int s = 0; s < 4; s++) /* the CTA of M tile mx and split s */
		src[s] = cluster.map_shared_rank(sums, (unsigned)(mx + 2 * s));
	/* a loop that adds each quad's four loads before the next: one that issued all of a thread's
	 * loads first (20 in flight) took 0.2 µs longer (call 4) */
	constexpr int Q = W / 4; /* float4 a row */
	for (int q = tid; q < 16 * Q; q += THREADS) {
		const int r = 16 * z + q / Q, c = 4 * (q % Q);
		float4 a = *reinterpret_cast<const float4 *>(src[0] + r * LD + c);
#pragma unroll
		for (int s = 1; s < 4; s++) {
			const float4 b = *reinterpret_cast<const float4 *>(src[s] + r * LD + c);
			a.x += b.x, a.y += b.y, a.z += b.z, a.w += b.w;
		}
		store_quad(out, (int64_t)(m0 + r) * n + n0 + c, a, bf16);
	}
	finish<true>(stamps, t0, t1);
}

/* The grid and clusters alone: each CTA stamps its start, waits for its cluster (CL = 8: the
 * in-SM end's) or its own threads, and stamps its end. */
template <int CL> __global__ void __launch_bounds__(THREADS, 1) empty_grid(unsigned long long *stamps)
{
	const uint64_t t0 = now_ns();
	if (CL > 1)
		cg::this_cluster().sync();
	else
		__syncthreads();
	if (threadIdx.x == 0)
		stamp(stamps, t0);
}

/* The in-SM end, pushed: warp w of each consumer warpgroup holds rows [16w, 16w + 16) of its
 * block, the rows CTA (m, w) sums, so it stores them straight into that CTA's shared memory (slot
 * z of four, one per split); after one wait of the cluster every CTA sums its own four slots (in
 * split order) and stores its rows. No CTA reads another's shared memory after the wait, so
 * none waits for the others before it leaves. */
template <int WN>
__global__ void __launch_bounds__(THREADS, 1)
    end_push(void *out, int64_t n, int bf16, unsigned long long *stamps)
{
	constexpr int W = 2 * WN, LD = W + 4, SLOT = 16 * LD;
	const uint64_t t0 = now_ns();
	extern __shared__ unsigned char raw[];
	float *slots = reinterpret_cast<float *>(
	    (reinterpret_cast<uintptr_t>(raw) + 1023) & ~(uintptr_t)1023);
	cg::cluster_group cluster = cg::this_cluster();
	const int tid = threadIdx.x, mx = blockIdx.x, z = blockIdx.z;
	const int m0 = mx * 64, n0 = blockIdx.y * W;
	if (tid < 256) {
		const int warp = (tid % 128) / 32;
		store_sums<WN>(cluster.map_shared_rank(slots, (unsigned)(mx + 2 * warp)) + z * SLOT, LD,
		               m0, n0, z, tid, 16 * warp);
	}
	cluster.sync(); /* every split's rows in their owner's slots */
	const uint64_t t1 = now_ns();
	constexpr int Q = W / 4;
	for (int q = tid; q < 16 * Q; q += THREADS) {
		const int r = q / Q, c = 4 * (q % Q);
		float4 a = *reinterpret_cast<const float4 *>(slots + r * LD + c);
#pragma unroll
		for (int s = 1; s < 4; s++) {
			const float4 b = *reinterpret_cast<const float4 *>(slots + s * SLOT + r * LD + c);
			a.x += b.x, a.y += b.y, a.z += b.z, a.w += b.w;
		}
		store_quad(out, (int64_t)(m0 + 16 * z + r) * n + n0 + c, a, bf16);
	}
	finish<false>(stamps, t0, t1);
}

/* The in-SM end by the TMA unit: every CTA stores its sums in its own shared memory, row-major,
 * so that the 16 rows each owner sums lie together; after the cluster's wait, one thread per
 * other owner copies them into that owner's slot for this split (cp.async.bulk, shared::cta to
 * shared::cluster, completing on the owner's barrier, which expects three slots); each CTA waits
 * for its three, sums them with its own rows in split order and stores them, then waits for the
 * cluster once more so that no CTA leaves while a copy still reads its shared memory. */
template <int WN>
__global__ void __launch_bounds__(THREADS, 1)
    end_bulk(void *out, int64_t n, int bf16, unsigned long long *stamps)
{
	constexpr int W = 2 * WN, LD = W + 4, SLOT = 16 * LD;
	constexpr uint32_t SLOT_BYTES = SLOT * 4;
	const uint64_t t0 = now_ns();
	extern __shared__ unsigned char raw[];
	__shared__ __align__(8) uint64_t recv;
	float *sums = reinterpret_cast<float *>(
	    (reinterpret_cast<uintptr_t>(raw) + 1023) & ~(uintptr_t)1023);
	float *slots = sums + 64 * LD;
	cg::cluster_group cluster = cg::this_cluster();
	const int tid = threadIdx.x, mx = blockIdx.x, z = blockIdx.z;
	const int m0 = mx * 64, n0 = blockIdx.y * W;
	const uint32_t bar = gq_wg_smem_addr(&recv);
	if (tid == 0) {
		gq_wg_bar_init(&recv, 1);
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
		gq_wg_bar_expect_tx(bar, 3 * SLOT_BYTES);
	}
	if (tid < 256) {
		store_sums<WN>(sums, LD, m0, n0, z, tid, 0);
		asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); /* for the copies */
	}
	cluster.sync(); /* every CTA's sums stored and its barrier armed */
	const uint64_t t1 = now_ns();
	if (tid < 4 && tid != z) { /* rows [16·tid, 16·tid + 16) to owner (mx, tid) */
		const uint32_t rank = (uint32_t)(mx + 2 * tid);
		uint32_t dst, rbar;
		const uint32_t mine = gq_wg_smem_addr(slots + z * SLOT);
		asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(dst) : "r"(mine), "r"(rank));
		asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rbar) : "r"(bar), "r"(rank));
		asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"
		             " [%0], [%1], %2, [%3];" ::"r"(dst),
		             "r"(gq_wg_smem_addr(sums + 16 * tid * LD)), "r"(SLOT_BYTES), "r"(rbar)
		             : "memory");
	}
	gq_wg_bar_wait(bar, 0);
	constexpr int Q = W / 4;
	for (int q = tid; q < 16 * Q; q += THREADS) {
		const int r = q / Q, c = 4 * (q % Q);
		float4 a = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
		for (int s = 0; s < 4; s++) {
			const float *from = s == z ? sums + 16 * z * LD : slots + s * SLOT;
			const float4 b = *reinterpret_cast<const float4 *>(from + r * LD + c);
			if (s == 0)
				a = b;
			else
				a.x += b.x, a.y += b.y, a.z += b.z, a.w += b.w;
		}
		store_quad(out, (int64_t)(m0 + 16 * z + r) * n + n0 + c, a, bf16);
	}
	finish<true>(stamps, t0, t1);
}

static float bf16_to_float(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* out (FP32 or BF16, [128, n]) against the host's sum of the four splits: the largest
 * difference, in units of the rounding's tolerance (0 for FP32: the values are exact). */
static double check(const void *dev, int64_t n, int bf16)
{
	const size_t count = (size_t)128 * n;
	std::vector<unsigned char> h(count * (bf16 ? 2 : 4));
	CHECK(cudaMemcpy(h.data(), dev, h.size(), cudaMemcpyDeviceToHost));
	double worst = 0;
	for (int r = 0; r < 128; r++)
		for (int64_t c = 0; c < n; c++) {
			double want = 0;
			for (int z = 0; z < 4; z++)
				want += part_value(r, (int)c, z);
			const size_t i = (size_t)r * n + c;
			double got;
			if (bf16) {
				uint16_t b;
				memcpy(&b, h.data() + 2 * i, 2);
				got = bf16_to_float(b);
			} else {
				float f;
				memcpy(&f, h.data() + 4 * i, 4);
				got = f;
			}
			const double tol = bf16 ? fabs(want) / 256 + 1e-30 : 1e-30;
			worst = std::max(worst, fabs(got - want) / tol);
		}
	return worst;
}

static int launches = 200;

/* Per op, µs from its first start: its last end, the last CTA past its wait and past its loop
 * (0 where the op has no such mark). */
struct times {
	std::vector<double> end, wait, loop;
};

/* Time `launches` ops (after 5 warm-ups) by their stamps: op() enqueues one on stream 0. */
template <typename F> static times time_op(unsigned long long *stamps, F op)
{
	times t;
	const unsigned long long init[4] = {~0ull, 0ull, 0ull, 0ull};
	for (int i = 0; i < launches + 5; i++) {
		CHECK(cudaMemcpy(stamps, init, sizeof(init), cudaMemcpyHostToDevice));
		op();
		CHECK(cudaGetLastError());
		CHECK(cudaDeviceSynchronize());
		unsigned long long h[4];
		CHECK(cudaMemcpy(h, stamps, sizeof(h), cudaMemcpyDeviceToHost));
		if (i < 5)
			continue;
		t.end.push_back((double)(h[1] - h[0]) / 1000.0);
		t.wait.push_back(h[2] ? (double)(h[2] - h[0]) / 1000.0 : 0.0);
		t.loop.push_back(h[3] ? (double)(h[3] - h[0]) / 1000.0 : 0.0);
	}
	return t;
}

static double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

static void report(const char *name, times t, double worst)
{
	std::vector<double> e = t.end;
	std::sort(e.begin(), e.end());
	printf("%-44s span median %6.2f us  p10 %6.2f  p90 %6.2f; past the wait %5.2f, the loop "
	       "%5.2f  (%zu ops; worst difference / tolerance %.3g)\n",
	       name, e[e.size() / 2], e[e.size() / 10], e[e.size() * 9 / 10], median(t.wait),
	       median(t.loop), e.size(), worst);
}

/* The empty grids of both ends: (2, tiles, 4) CTAs in clusters of 2 along x or of 2 x 1 x 4. */
template <int CL> static void run_empty(int tiles, unsigned long long *stamps)
{
	CHECK(cudaFuncSetAttribute(empty_grid<CL>, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                           SMEM_BYTES));
	cudaLaunchAttribute ca;
	ca.id = cudaLaunchAttributeClusterDimension;
	ca.val.clusterDim.x = 2, ca.val.clusterDim.y = 1, ca.val.clusterDim.z = CL / 2;
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3(2, (unsigned)tiles, 4);
	cfg.blockDim = dim3(THREADS);
	cfg.dynamicSmemBytes = SMEM_BYTES;
	cfg.attrs = &ca;
	cfg.numAttrs = 1;
	times t = time_op(stamps, [&] { CHECK(cudaLaunchKernelEx(&cfg, empty_grid<CL>, stamps)); });
	char name[96];
	snprintf(name, sizeof(name), "empty %3d CTAs, clusters of %d", 8 * tiles, CL);
	report(name, t, 0);
}

/* main's end for a [128, n] output, tiles 2·WN wide: memset of the sums, the adds, and with BF16
 * out the rounding as a programmatic dependent. */
template <int WN> static void run_adds(int64_t n, int bf16, unsigned long long *stamps)
{
	const int64_t count = 128 * n;
	float *ws;
	void *out;
	CHECK(cudaMalloc(&ws, count * 4));
	CHECK(cudaMalloc(&out, count * 4));
	CUtensorMap map_c;
	if (gq_wg_encode_sums(gq_wg_encoder(), &map_c, bf16 ? ws : static_cast<float *>(out), 128,
	                      n) != CUDA_SUCCESS) {
		fprintf(stderr, "cuTensorMapEncodeTiled refused the sums' map\n");
		exit(1);
	}
	CHECK(cudaFuncSetAttribute(end_adds<WN>, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                           SMEM_BYTES));
	cudaLaunchAttribute ca;
	ca.id = cudaLaunchAttributeClusterDimension;
	ca.val.clusterDim.x = 2, ca.val.clusterDim.y = 1, ca.val.clusterDim.z = 1;
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3(2, (unsigned)(n / (2 * WN)), 4);
	cfg.blockDim = dim3(THREADS);
	cfg.dynamicSmemBytes = SMEM_BYTES;
	cfg.attrs = &ca;
	cfg.numAttrs = 1;
	const int64_t quads = count / 4;
	const unsigned blocks = (unsigned)std::min<int64_t>(4096, (quads + 255) / 256);
	cudaLaunchAttribute pa;
	pa.id = cudaLaunchAttributeProgrammaticStreamSerialization;
	pa.val.programmaticStreamSerializationAllowed = 1;
	cudaLaunchConfig_t rcfg = {};
	rcfg.gridDim = dim3(blocks);
	rcfg.blockDim = dim3(256);
	rcfg.attrs = &pa;
	rcfg.numAttrs = 1;
	float *sums = bf16 ? ws : static_cast<float *>(out);
	auto op = [&] {
		CHECK(cudaMemsetAsync(sums, 0, count * 4));
		CHECK(cudaLaunchKernelEx(&cfg, end_adds<WN>, map_c, bf16, stamps));
		if (bf16)
			CHECK(cudaLaunchKernelEx(&rcfg, round_bf16, (const float *)ws, count,
			                         static_cast<__nv_bfloat16 *>(out), stamps));
	};
	times t = time_op(stamps, op);
	char name[96];
	snprintf(name, sizeof(name), "adds  %3d CTAs, tile 64x%d, N %lld, %s", 2 * (int)cfg.gridDim.y * 4,
	         2 * WN, (long long)n, bf16 ? "BF16" : "FP32");
	report(name, t, check(out, n, bf16));
	CHECK(cudaFree(ws));
	CHECK(cudaFree(out));
}

/* how: 0 pull, 1 push, 2 bulk */
template <int WN> static void run_insm(int tiles, int bf16, unsigned long long *stamps, int how)
{
	const int64_t n = (int64_t)tiles * 2 * WN, count = 128 * n;
	void *out;
	CHECK(cudaMalloc(&out, count * 4));
	void (*kern)(void *, int64_t, int, unsigned long long *) =
	    how == 2 ? end_bulk<WN> : how == 1 ? end_push<WN> : end_insm<WN>;
	CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
	cudaLaunchAttribute ca;
	ca.id = cudaLaunchAttributeClusterDimension;
	ca.val.clusterDim.x = 2, ca.val.clusterDim.y = 1, ca.val.clusterDim.z = 4;
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3(2, (unsigned)tiles, 4);
	cfg.blockDim = dim3(THREADS);
	cfg.dynamicSmemBytes = SMEM_BYTES;
	cfg.attrs = &ca;
	cfg.numAttrs = 1;
	int at_once = 0;
	CHECK(cudaOccupancyMaxActiveClusters(&at_once, kern, &cfg));
	auto op = [&] { CHECK(cudaLaunchKernelEx(&cfg, kern, out, n, bf16, stamps)); };
	times t = time_op(stamps, op);
	char name[96];
	snprintf(name, sizeof(name), "%s  %3d CTAs, tile 64x%d, N %lld, %s",
	         how == 2 ? "bulk" : how == 1 ? "push" : "pull",
	         8 * tiles, 2 * WN,
	         (long long)n, bf16 ? "BF16" : "FP32");
	report(name, t, check(out, n, bf16));
	printf("      (%d clusters of 2x1x4 fit at once; the grid has %d)\n", at_once, tiles);
	CHECK(cudaFree(out));
}

int main(int argc, char **argv)
{
	if (argc > 1)
		launches = atoi(argv[1]);
	if (launches < 1) {
		fprintf(stderr, "usage: insm [LAUNCHES]\n");
		return 2;
	}
	cudaDeviceProp prop;
	CHECK(cudaGetDeviceProperties(&prop, 0));
	printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
	unsigned long long *stamps;
	CHECK(cudaMalloc(&stamps, 4 * sizeof(unsigned long long)));
	run_empty<2>(16, stamps);
	run_empty<8>(15, stamps);
	for (int bf16 = 0; bf16 < 2; bf16++) {
		run_adds<128>(4096, bf16, stamps);   /* n256:s4 at 4096x128 */
		run_adds<160>(5120, bf16, stamps);   /* n320:s4's 64 x 320 at 5120x128 */
		for (int how = 0; how < 3; how++) {
			run_insm<128>(15, bf16, stamps, how); /* the same 64 x 256 tiles, 15 of them */
			run_insm<144>(15, bf16, stamps, how); /* 4096 in 15 tiles: at most 280 wide */
			run_insm<176>(15, bf16, stamps, how); /* 5120 in 15 tiles: at most 344 wide */
		}
	}
	CHECK(cudaFree(stamps));
	return 0;
}
