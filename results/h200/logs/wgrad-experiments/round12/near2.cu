/* near2.cu: near.cu with the rows of each unit listed in advance (by the host, from the
 * measured homes) instead of found by a gather warp, and four copy warps that read the lists
 * (../../wgrad-experiments.md, twelfth round). Not part of the build.
 *
 *   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Ikernels -Iharness \
 *       -o build-exp/near2 results/h200/logs/wgrad-experiments/round12/near2.cu -lcublasLt -lcuda
 *   build-exp/near2 [T [N [LAUNCHES]]]   (defaults: T = 65537, N = 4096 and 5120, 15 launches)
 *
 * Call 5 of near.cu found its gather warp taking about 1480 clocks per K-block of 64 rows and
 * its three copy warps about 1400, where the whole GEMM must spend under about 900 to be as
 * fast as cuBLASLt. Here the lists cost the kernel nothing to find, and "x only" (g's copies
 * skipped: wrong sums) shows what the copies of x alone cost.
 */
#include "../../../../../kernels/gemm_wgmma.cu"
#include "../diag.h"

#include <cooperative_groups.h>

#include <algorithm>
#include <vector>

namespace cg = cooperative_groups;

#define NR_MAX_SM 256
#define NR_MAX_PAGES 2048
#define NR_PMASK 0xABull /* block-address bits 0, 1, 3, 5, 7: address bits 12, 13, 15, 17, 19 */

struct nr_params {
	const uint16_t *a, *b; /* g [K, M], x [K, N] */
	int64_t m, n, k;
	int32_t n_tiles, ranges, rows_per_range;
	int32_t mode;      /* 0 near, 1 blind, 2 far */
	int32_t skip_copy; /* 1: the copy warps copy nothing (wrong sums) */
	int32_t skip_g;    /* 1: they copy x only (wrong sums) */
	const int32_t *list;     /* every unit's rows, unit after unit */
	const int32_t *unit_off; /* unit u's rows: list[unit_off[u] .. unit_off[u + 1]) */
	unsigned long long *prof; /* NULL, or 8 clock counts per CTA (see nr_kernel) */
	int32_t *queue; /* [0], [1]: the classes' next units; [2]: CTAs done (self-cleaning) */
	uint64_t page0; /* x's first 2 MiB page */
	int32_t pages;
	uint32_t sm_half[NR_MAX_SM / 32];       /* bit s: SM s on half 1 */
	uint32_t page_flip[NR_MAX_PAGES / 32]; /* bit p: page page0 + p's constant */
};

__device__ __forceinline__ uint32_t nr_smid()
{
	uint32_t s;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
	return s;
}

__device__ __forceinline__ void nr_cp16(uint32_t dst, const void *src, int bytes)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(bytes));
}

#define NR_COPIERS 4 /* copy warps: 12 warps in all, so that each SM sub-partition holds 3 */
#define NR_THREADS (2 * 128 + 32 * NR_COPIERS)

__global__ void __launch_bounds__(NR_THREADS, 1)
    nr_kernel(const __grid_constant__ CUtensorMap map_c, const nr_params p)
{
	using C = gq_wg_cfg<128, 128>;
	constexpr int WN = C::WN;
	static_assert(C::CONSUMERS == 2 && WN == 128, "two consumer warpgroups of 64 × 128");
	extern __shared__ unsigned char gq_wg_smem_raw[];
	__shared__ __align__(8) uint64_t full[C::STAGES], empty[C::STAGES];
	__shared__ int32_t unit_s;
	unsigned char *smem = reinterpret_cast<unsigned char *>(
	    (reinterpret_cast<uintptr_t>(gq_wg_smem_raw) + 1023) & ~(uintptr_t)1023);
	const int tid = threadIdx.x;
	const int per_class = p.n_tiles * p.ranges;
	if (tid == 0) {
		for (int s = 0; s < C::STAGES; s++) {
			gq_wg_bar_init(&full[s], 32 * NR_COPIERS); /* every copy lane's copies (noinc) */
			gq_wg_bar_init(&empty[s], C::CONSUMERS * 4);
		}
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
		const uint32_t sm = nr_smid();
		const int h = (p.sm_half[sm >> 5] >> (sm & 31)) & 1;
		int u;
		if (p.mode == 1) {
			u = blockIdx.x;
		} else {
			const int first = p.mode == 0 ? h : 1 - h;
			int q = atomicAdd(&p.queue[first], 1);
			if (q < per_class)
				u = 2 * q + first;
			else
				u = 2 * atomicAdd(&p.queue[1 - first], 1) + (1 - first);
			if (atomicAdd(&p.queue[2], 1) == (int)gridDim.x - 1) /* every CTA has its unit */
				p.queue[0] = p.queue[1] = p.queue[2] = 0;
		}
		unit_s = u;
	}
	__syncthreads();
	const int u = unit_s, q = u >> 1;
	const int j = q % p.n_tiles;
	const int n0 = j * 128;
	const int32_t off = p.unit_off[u], count = p.unit_off[u + 1] - off;
	const int nkb = (count + GQ_WG_BK - 1) / GQ_WG_BK;
	const uint32_t full0 = gq_wg_smem_addr(full), empty0 = gq_wg_smem_addr(empty);
	long long t_start = clock64();

	if (tid >= C::CONSUMERS * 128) { /* a copy warp: pairs of rows w, w + NR_COPIERS, … */
		const int lane = tid & 31, w = (tid - C::CONSUMERS * 128) / 32;
		const uint32_t ring0 = gq_wg_smem_addr(smem);
		const int c = lane & 15;
		const uint32_t swz = (uint32_t)(c & 7) << 4, box = (uint32_t)(c >> 3) * GQ_WG_BOX_BYTES;
		const uint16_t *xb = p.b + n0 + c * 8, *gb = p.a + c * 8;
		const int32_t *list = p.list + off;
		constexpr int PER = GQ_WG_BK / 2 / NR_COPIERS;
		int32_t nxt[PER];
#pragma unroll
		for (int k = 0; k < PER; k++) {
			const int rr = 2 * (w + NR_COPIERS * k) + (lane >> 4);
			nxt[k] = rr < count ? __ldg(list + rr) : -1;
		}
		int s = 0;
		uint32_t parity = 0;
		long long tw = 0, ti = 0;
		for (int i = 0; i < nkb; i++) {
			const long long c0 = clock64();
			if (i >= C::STAGES)
				gq_wg_bar_wait(empty0 + 8 * s, parity);
			const long long c1 = clock64();
			tw += c1 - c0;
			const uint32_t bar = full0 + 8 * s;
			const uint32_t a = ring0 + (uint32_t)s * C::STAGE_BYTES;
			const uint32_t b = a + C::A_BYTES;
			int32_t tr[PER];
#pragma unroll
			for (int k = 0; k < PER; k++) {
				tr[k] = nxt[k];
				const int rr = GQ_WG_BK * (i + 1) + 2 * (w + NR_COPIERS * k) + (lane >> 4);
				nxt[k] = rr < count ? __ldg(list + rr) : -1; /* the next K-block's, ahead */
			}
			if (!p.skip_copy) {
#pragma unroll
				for (int k = 0; k < PER; k++) {
					const int rr = 2 * (w + NR_COPIERS * k) + (lane >> 4);
					const bool valid = tr[k] >= 0;
					const int64_t row = valid ? tr[k] : 0;
					const uint32_t at =
					    box + (uint32_t)rr * 128 + (swz ^ ((uint32_t)(rr & 7) << 4));
					nr_cp16(b + at, xb + row * p.n, valid ? 16 : 0);
					if (!p.skip_g)
						nr_cp16(a + at, gb + row * p.m, valid ? 16 : 0);
				}
			}
			asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar)
			             : "memory");
			ti += clock64() - c1;
			gq_wg_next_stage<C::STAGES>(s, parity, i >= C::STAGES);
		}
		if (p.prof && tid == C::CONSUMERS * 128)
			p.prof[8 * blockIdx.x + 2] = tw, p.prof[8 * blockIdx.x + 3] = ti;
		asm volatile("cp.async.wait_all;" ::: "memory");
		return;
	}

	const int wg = tid / 128, wm = wg;
	float acc[WN / 2], sum[WN / 2];
#pragma unroll
	for (int i = 0; i < WN / 2; i++)
		acc[i] = 0.f, sum[i] = 0.f;
	const uint64_t da0 = gq_wg_desc(gq_wg_smem_addr(smem + wm * GQ_WG_BOX_BYTES));
	const uint64_t db0 = gq_wg_desc(gq_wg_smem_addr(smem + C::A_BYTES));
	int s = 0;
	uint32_t parity = 0;
	int i = 0;
	long long tw = 0, tm = 0;
	const long long start = t_start;
	for (; i < nkb; i++) {
		const long long c0 = clock64();
		gq_wg_bar_wait(full0 + 8 * s, parity);
		const long long c1 = clock64();
		tw += c1 - c0;
		asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); /* cp.async → wgmma */
		const uint64_t step = (uint64_t)(s * C::STAGE_BYTES) >> 4;
		const uint64_t da = da0 + step, db = db0 + step;
		const int fresh = (i % GQ_WG_CHUNK_KBLOCKS) == 0;
		gq_wg_fence_regs(acc);
		gq_wg_fence();
#pragma unroll
		for (int kk = 0; kk < GQ_WG_BK / 16; kk++)
			gq_wg_mma<WN>(acc, da + kk * (2048 >> 4), db + kk * (2048 >> 4),
			              (fresh && kk == 0) ? 0 : 1);
		gq_wg_commit();
		gq_wg_wait_all();
		gq_wg_fence_regs(acc);
		__syncwarp();
		if ((tid & 31) == 0)
			gq_wg_bar_arrive(empty0 + 8 * s);
		gq_wg_next_stage<C::STAGES>(s, parity, true);
		tm += clock64() - c1;
		if ((i % GQ_WG_CHUNK_KBLOCKS) == GQ_WG_CHUNK_KBLOCKS - 1) {
#pragma unroll
			for (int jj = 0; jj < WN / 2; jj++)
				sum[jj] = __fadd_rn(sum[jj], acc[jj]);
		}
	}
	if (i % GQ_WG_CHUNK_KBLOCKS != 0) {
#pragma unroll
		for (int jj = 0; jj < WN / 2; jj++)
			sum[jj] = __fadd_rn(sum[jj], acc[jj]);
	}
	gq_wg_reduce_tile<WN, C::CONSUMERS * 128>(&map_c, smem, wg, sum, n0, 64 * wm);
	if (p.prof && tid == 0) {
		p.prof[8 * blockIdx.x + 4] = tw, p.prof[8 * blockIdx.x + 5] = tm;
		p.prof[8 * blockIdx.x + 6] = i, p.prof[8 * blockIdx.x + 7] = clock64() - start;
	}
}

/* ---- the halves and the pages (as l2-near.cu) ---- */

__global__ void nr_where(int *ids)
{
	if (threadIdx.x == 0)
		ids[blockIdx.x] = (int)nr_smid();
}

__device__ __forceinline__ uint32_t nr_load_cg(uint64_t a)
{
	uint32_t v;
	asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
	return v;
}

/* The warm SM reads the line at every address of list[0 .. nall); after a grid barrier every
 * other SM times, one after the other, the lines at tab[smid * stride + i] (i < count, 0: no
 * more), lat in the same layout. One CTA per SM, launched cooperatively. */
__global__ void nr_calib(const uint64_t *tab, const uint64_t *list, int stride, int count,
                         int warm_sm, int nall, uint16_t *lat, uint32_t *sink)
{
	__shared__ uint32_t keep[2];
	const uint32_t me = nr_smid();
	if (me == (uint32_t)warm_sm) {
		uint32_t s = 0;
		for (int i = threadIdx.x; i < nall; i += blockDim.x)
			s += nr_load_cg(list[i]);
		if (s == 0x12345678u)
			sink[0] = s;
	}
	cg::this_grid().sync();
	if (me == (uint32_t)warm_sm || threadIdx.x != 0)
		return;
	uint32_t v = 0;
#pragma unroll 1
	for (int i = 0; i < count; i++) {
		const uint64_t a = tab[me * stride + i];
		if (!a)
			break;
		const long long t0 = clock64();
		const uint32_t next = nr_load_cg(a + (v == 0x7fffffffu ? 64 : 0)); /* never NaNs */
		keep[i & 1] = next; /* waits for the load */
		const long long t1 = clock64();
		const long long d = t1 - t0;
		lat[me * stride + i] = (uint16_t)(d > 65535 ? 65535 : d);
		v = next;
	}
	if (keep[0] == 0x12345678u)
		sink[1] = keep[1];
}

static const int NR_STRIDE = 512;
static const int NR_BIG_SMEM = 150 * 1024;

struct nr_calibration {
	int sms, warm_sm, thresh;
	std::vector<int> ids;
	std::vector<uint8_t> half; /* by smid: 0 the warm SM's half */
};

static void *flush_buf;
static size_t flush_bytes;

/* Time the lines of tab (NR_STRIDE entries per smid, 0: none) after the warm SM read them. */
static std::vector<uint16_t> nr_round(const nr_calibration &c, const std::vector<uint64_t> &tab,
                                      int count)
{
	std::vector<uint64_t> both(tab);
	int nall = 0;
	for (uint64_t a : tab)
		if (a)
			both.push_back(a), nall++;
	uint64_t *d;
	uint16_t *d_lat;
	uint32_t *sink;
	CHECK(cudaMalloc(&d, both.size() * 8));
	CHECK(cudaMemcpy(d, both.data(), both.size() * 8, cudaMemcpyHostToDevice));
	CHECK(cudaMalloc(&d_lat, tab.size() * 2));
	CHECK(cudaMemset(d_lat, 0, tab.size() * 2));
	CHECK(cudaMalloc(&sink, 16));
	CHECK(cudaMemset(flush_buf, 1, flush_bytes)); /* the lines out of the L2 */
	const uint64_t *list = d + tab.size();
	int stride = NR_STRIDE, cnt = count, warm = c.warm_sm;
	void *args[] = {&d, &list, &stride, &cnt, &warm, &nall, &d_lat, &sink};
	CHECK(cudaLaunchCooperativeKernel((void *)nr_calib, dim3(c.sms), dim3(256), args,
	                                  NR_BIG_SMEM, 0));
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	std::vector<uint16_t> lat(tab.size());
	CHECK(cudaMemcpy(lat.data(), d_lat, tab.size() * 2, cudaMemcpyDeviceToHost));
	CHECK(cudaFree(d));
	CHECK(cudaFree(d_lat));
	CHECK(cudaFree(sink));
	return lat;
}

/* The SMs' halves, from 256 lines of scratch per SM (any values but 0x7fffffff words). */
static nr_calibration nr_halves(const void *scratch, size_t bytes)
{
	nr_calibration c;
	CHECK(cudaDeviceGetAttribute(&c.sms, cudaDevAttrMultiProcessorCount, 0));
	CHECK(cudaFuncSetAttribute(nr_where, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                           NR_BIG_SMEM));
	CHECK(cudaFuncSetAttribute(nr_calib, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                           NR_BIG_SMEM));
	int *d_ids;
	CHECK(cudaMalloc(&d_ids, c.sms * sizeof(int)));
	nr_where<<<c.sms, 32, NR_BIG_SMEM>>>(d_ids);
	CHECK(cudaGetLastError());
	c.ids.resize(c.sms);
	CHECK(cudaMemcpy(c.ids.data(), d_ids, c.sms * sizeof(int), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(d_ids));
	std::vector<int> sorted = c.ids;
	std::sort(sorted.begin(), sorted.end());
	if (std::unique(sorted.begin(), sorted.end()) != sorted.end() || sorted.back() >= NR_MAX_SM) {
		fprintf(stderr, "near: the CTAs did not land one per SM\n");
		exit(1);
	}
	c.warm_sm = sorted[0];
	const int per = 256;
	const size_t blocks = bytes / 4096;
	std::vector<uint64_t> tab((size_t)NR_MAX_SM * NR_STRIDE, 0);
	for (int s = 0; s < c.sms; s++)
		for (int i = 0; i < per; i++)
			tab[(size_t)c.ids[s] * NR_STRIDE + i] =
			    reinterpret_cast<uint64_t>(scratch) +
			    ((size_t)(s * per + i) * 7919 % blocks) * 4096;
	std::vector<uint16_t> lat = nr_round(c, tab, per);
	std::vector<uint16_t> v;
	for (int s = 0; s < c.sms; s++)
		if (c.ids[s] != c.warm_sm)
			for (int i = 0; i < per; i++)
				v.push_back(lat[(size_t)c.ids[s] * NR_STRIDE + i]);
	std::sort(v.begin(), v.end());
	c.thresh = v[v.size() / 4] + 80;
	if (v[v.size() / 10] < 50) {
		fprintf(stderr, "near: L2 hits timed at %d cycles\n", v[v.size() / 10]);
		exit(1);
	}
	c.half.assign(NR_MAX_SM, 0);
	int n1 = 0;
	for (int s = 0; s < c.sms; s++) {
		int f = 0;
		for (int i = 0; i < per; i++)
			f += lat[(size_t)c.ids[s] * NR_STRIDE + i] > c.thresh;
		c.half[c.ids[s]] = c.ids[s] != c.warm_sm && f * 4 > per;
		n1 += c.half[c.ids[s]];
	}
	printf("# halves: warm SM %d, %d of %d SMs on the other half; far above %d cycles\n",
	       c.warm_sm, n1, c.sms, c.thresh);
	if (n1 < c.sms / 4) {
		fprintf(stderr, "near: found no second half of SMs\n");
		exit(1);
	}
	return c;
}

/* The constant of every 2 MiB page that [x, x + bytes) touches, from 4 blocks of it. */
static void nr_pages(const nr_calibration &c, const void *x, size_t bytes, nr_params *p)
{
	const uint64_t x0 = reinterpret_cast<uint64_t>(x), x1 = x0 + bytes;
	p->page0 = x0 >> 21;
	p->pages = (int)(((x1 - 1) >> 21) - p->page0 + 1);
	if (p->pages > NR_MAX_PAGES) {
		fprintf(stderr, "near: x spans %d pages, more than %d\n", p->pages, NR_MAX_PAGES);
		exit(1);
	}
	std::vector<int> far;
	for (int s = 0; s < NR_MAX_SM; s++)
		if (c.half[s])
			far.push_back(s);
	std::vector<uint64_t> tab((size_t)NR_MAX_SM * NR_STRIDE, 0), which;
	std::vector<int> fill(NR_MAX_SM, 0);
	const int offs[4] = {0, 37, 101, 250};
	size_t k = 0;
	for (int pg = 0; pg < p->pages; pg++)
		for (int o : offs) {
			uint64_t a = ((p->page0 + pg) << 21) + (uint64_t)o * 4096;
			if (a < x0 || a >= x1)
				a = 0;
			const int s = far[k++ % far.size()];
			if (fill[s] >= NR_STRIDE) {
				fprintf(stderr, "near: too many probes\n");
				exit(1);
			}
			tab[(size_t)s * NR_STRIDE + fill[s]++] = a ? a : x0; /* x0: a dummy probe */
			which.push_back((uint64_t)s * NR_STRIDE + fill[s] - 1);
			which.push_back(a);
		}
	std::vector<uint16_t> lat = nr_round(c, tab, NR_STRIDE);
	memset(p->page_flip, 0, sizeof(p->page_flip));
	int undecided = 0, split = 0;
	for (int pg = 0; pg < p->pages; pg++) {
		int votes[2] = {0, 0};
		for (int o = 0; o < 4; o++) {
			const size_t at = which[2 * (pg * 4 + o)];
			const uint64_t a = which[2 * (pg * 4 + o) + 1];
			if (!a)
				continue;
			const int home = lat[at] > c.thresh ? 0 : 1; /* far from half 1: homed on half 0 */
			votes[home ^ (__builtin_popcountll((a >> 12) & NR_PMASK) & 1)]++;
		}
		if (votes[0] == votes[1])
			undecided++;
		if (votes[0] && votes[1])
			split++;
		if (votes[1] > votes[0])
			p->page_flip[pg >> 5] |= 1u << (pg & 31);
	}
	printf("# pages: %d, %d undecided, %d with probes that disagree\n", p->pages, undecided,
	       split);
}

static int launches = 15;

template <typename F> static float median_us(F launch)
{
	cudaEvent_t a, b;
	CHECK(cudaEventCreate(&a));
	CHECK(cudaEventCreate(&b));
	std::vector<float> t;
	for (int i = 0; i <= launches; i++) {
		CHECK(cudaMemsetAsync(flush_buf, i, flush_bytes));
		CHECK(cudaEventRecord(a));
		launch();
		CHECK(cudaGetLastError());
		CHECK(cudaEventRecord(b));
		CHECK(cudaEventSynchronize(b));
		float ms = 0;
		CHECK(cudaEventElapsedTime(&ms, a, b));
		if (i > 0) /* the first is a warm-up */
			t.push_back(ms * 1000.f);
	}
	std::sort(t.begin(), t.end());
	CHECK(cudaEventDestroy(a));
	CHECK(cudaEventDestroy(b));
	return t[t.size() / 2];
}

__global__ void nr_fill(uint16_t *v, int64_t n, uint32_t seed)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x) {
		uint32_t h = (uint32_t)i * 2654435761u ^ seed;
		h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
		const float f = ((int)(h & 1023) - 512) / 512.f;
		v[i] = __bfloat16_as_ushort(__float2bfloat16(f));
	}
}

static double max_rel(const std::vector<float> &a, const std::vector<float> &b)
{
	double d = 0, m = 0;
	for (size_t i = 0; i < a.size(); i++) {
		d = std::max(d, (double)fabsf(a[i] - b[i]));
		m = std::max(m, (double)fabsf(b[i]));
	}
	return d / m;
}

int main(int argc, char **argv)
{
	const int64_t T = argc > 1 ? atoll(argv[1]) : 65537;
	const int64_t only_n = argc > 2 ? atoll(argv[2]) : 0;
	if (argc > 3)
		launches = atoi(argv[3]);
	if (T < 1 || only_n < 0 || launches < 1) {
		fprintf(stderr, "usage: near [T [N [LAUNCHES]]]\n");
		return 2;
	}
	const int64_t M = 128;
	int l2 = 0;
	CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
	flush_bytes = 2 * (size_t)l2;
	CHECK(cudaMalloc(&flush_buf, flush_bytes));
	CHECK(cudaMemset(flush_buf, 0, flush_bytes));
	void *scratch;
	CHECK(cudaMalloc(&scratch, 64u << 20));
	CHECK(cudaMemset(scratch, 0, 64u << 20));
	const nr_calibration cal = nr_halves(scratch, 64u << 20);

	uint16_t *x, *g;
	float *out;
	int32_t *queue;
	CHECK(cudaMalloc(&x, (size_t)T * 5120 * 2));
	CHECK(cudaMalloc(&g, (size_t)T * M * 2));
	CHECK(cudaMalloc(&out, (size_t)M * 5120 * 4));
	CHECK(cudaMalloc(&queue, 4096));
	CHECK(cudaMemset(queue, 0, 4096));
	nr_fill<<<1024, 256>>>(x, T * 5120, 1);
	nr_fill<<<1024, 256>>>(g, T * M, 2);
	CHECK(cudaGetLastError());
	CHECK(cudaFuncSetAttribute(nr_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                           (int)gq_wg_cfg<128, 128>::SMEM));
	cublasLtHandle_t lt;
	LT(cublasLtCreate(&lt));
	printf("# T %lld, M %lld, %d launches per figure\n", (long long)T, (long long)M, launches);
	for (int64_t N : {4096, 5120}) {
		if (only_n && N != only_n)
			continue;
		const size_t ob = (size_t)M * N * 4;
		std::vector<float> ref(M * N), got(M * N);
		/* cuBLASLt */
		lt_wgrad w;
		lt_wgrad_open(lt, &w, M, N, T, 8);
		lt_wgrad_run(lt, &w, 0, x, g, out);
		CHECK(cudaDeviceSynchronize());
		CHECK(cudaMemcpy(ref.data(), out, ob, cudaMemcpyDeviceToHost));
		float best = 1e30f;
		int best_a = 0;
		for (int a = 0; a < w.found; a++) {
			const float us = median_us([&] { lt_wgrad_run(lt, &w, a, x, g, out); });
			if (us < best)
				best = us, best_a = a;
		}
		printf("N %5lld  cuBLASLt fastest of %d (algo %d)   %7.1f us\n", (long long)N, w.found,
		       best_a, best);
		lt_wgrad_close(&w);

		/* ours, as kernels.c launches gemmq:split:n128:s4 (s3 at 5120) */
		gq_wg_params wp;
		memset(&wp, 0, sizeof(wp));
		wp.a = g, wp.b = x, wp.out = out, wp.ws = out;
		wp.m = M, wp.n = N, wp.k = T, wp.bm = 128, wp.bn = 128;
		const int64_t kblocks = (T + GQ_WG_BK - 1) / GQ_WG_BK;
		wp.splits = N == 4096 ? 4 : 3;
		wp.kb_per_split = (int32_t)((kblocks + wp.splits - 1) / wp.splits);
		wp.mode = GQ_MMA_ATOMIC, wp.out_fp32 = 1;
		wp.share = gq_wg_share(M, N, T, 128, 128, l2);
		wp.b_stream = wp.share != GQ_WG_SHARE_NONE;
		int threads = 0, per_sm = 0;
		size_t smem = 0;
		CHECK(gq_wg_setup(128, 128, &threads, &smem, &per_sm));
		CHECK(gq_wg_cluster_for(&wp));
		static gq_wg_maps maps;
		const char *why = "";
		if (gq_wg_encode(&wp, &maps, &why) != cudaSuccess) {
			fprintf(stderr, "%s\n", why);
			return 1;
		}
		auto ours = [&] {
			CHECK(cudaMemsetAsync(out, 0, ob));
			CHECK(gq_wg_launch(&wp, &maps, 0));
		};
		ours();
		CHECK(cudaDeviceSynchronize());
		CHECK(cudaMemcpy(got.data(), out, ob, cudaMemcpyDeviceToHost));
		const double e_ours = max_rel(got, ref);
		printf("N %5lld  gemmq:split:n128:s%d (cluster %d)  %7.1f us   max |diff| / max |ref| %.2e\n",
		       (long long)N, wp.splits, wp.cluster, median_us(ours), e_ours);

		/* near */
		nr_params np;
		memset(&np, 0, sizeof(np));
		np.a = g, np.b = x, np.m = M, np.n = N, np.k = T;
		np.n_tiles = (int32_t)(N / 128);
		np.queue = queue;
		for (int s = 0; s < NR_MAX_SM; s++)
			if (cal.half[s])
				np.sm_half[s >> 5] |= 1u << (s & 31);
		nr_pages(cal, x, (size_t)T * N * 2, &np);
		int32_t *d_list = NULL, *d_off = NULL;
		for (int ranges : {2, 3}) {
			np.ranges = ranges;
			np.rows_per_range = (int32_t)((T + ranges - 1) / ranges);
			const unsigned grid = (unsigned)(2 * np.n_tiles * ranges);
			/* the units' rows, by the homes measured */
			std::vector<int32_t> list, off;
			for (unsigned uu = 0; uu < grid; uu++) {
				const int cls = uu & 1, qq = uu >> 1, r = qq / np.n_tiles, j = qq % np.n_tiles;
				off.push_back((int32_t)list.size());
				const int64_t lo = (int64_t)r * np.rows_per_range;
				const int64_t hi = std::min<int64_t>(lo + np.rows_per_range, T);
				for (int64_t t = lo; t < hi; t++) {
					const uint64_t ad = reinterpret_cast<uint64_t>(x) + (uint64_t)t * N * 2 +
					                    (uint64_t)j * 256;
					const uint64_t pg = (ad >> 21) - np.page0;
					const int h = (__builtin_popcountll((ad >> 12) & NR_PMASK) & 1) ^
					              (int)((np.page_flip[pg >> 5] >> (pg & 31)) & 1);
					if (h == cls)
						list.push_back((int32_t)t);
				}
			}
			off.push_back((int32_t)list.size());
			if (d_list) {
				CHECK(cudaFree(d_list));
				CHECK(cudaFree(d_off));
			}
			CHECK(cudaMalloc(&d_list, list.size() * 4));
			CHECK(cudaMalloc(&d_off, off.size() * 4));
			CHECK(cudaMemcpy(d_list, list.data(), list.size() * 4, cudaMemcpyHostToDevice));
			CHECK(cudaMemcpy(d_off, off.data(), off.size() * 4, cudaMemcpyHostToDevice));
			np.list = d_list, np.unit_off = d_off;
			struct variant {
				const char *name;
				int mode, skip_copy, skip_g;
			} vs[] = {{"near", 0, 0, 0},          {"blind", 1, 0, 0},
			          {"far", 2, 0, 0},           {"near, x only", 0, 0, 1},
			          {"blind, x only", 1, 0, 1}, {"near, nothing copied", 0, 1, 0}};
			for (const variant &v : vs) {
				np.mode = v.mode, np.skip_copy = v.skip_copy, np.skip_g = v.skip_g;
				auto near = [&] {
					CHECK(cudaMemsetAsync(out, 0, ob));
					nr_kernel<<<grid, NR_THREADS, gq_wg_cfg<128, 128>::SMEM>>>(
					    *reinterpret_cast<const CUtensorMap *>(maps.c), np);
				};
				near();
				CHECK(cudaGetLastError());
				CHECK(cudaDeviceSynchronize());
				CHECK(cudaMemcpy(got.data(), out, ob, cudaMemcpyDeviceToHost));
				const double e = max_rel(got, ref);
				printf("N %5lld  ranges %d (%3u CTAs)  %-20s %7.1f us   max |diff| / max |ref| %.2e\n",
				       (long long)N, ranges, grid, v.name, median_us(near), e);
			}
			np.mode = 0, np.skip_copy = 0, np.skip_g = 0;
			{ /* where the clocks go, averaged over the CTAs */
				unsigned long long *d_prof;
				CHECK(cudaMalloc(&d_prof, (size_t)grid * 8 * 8));
				CHECK(cudaMemset(d_prof, 0, (size_t)grid * 8 * 8));
				np.prof = d_prof;
				CHECK(cudaMemsetAsync(flush_buf, 0, flush_bytes));
				nr_kernel<<<grid, NR_THREADS, gq_wg_cfg<128, 128>::SMEM>>>(
				    *reinterpret_cast<const CUtensorMap *>(maps.c), np);
				CHECK(cudaGetLastError());
				CHECK(cudaDeviceSynchronize());
				std::vector<unsigned long long> h((size_t)grid * 8);
				CHECK(cudaMemcpy(h.data(), d_prof, h.size() * 8, cudaMemcpyDeviceToHost));
				CHECK(cudaFree(d_prof));
				np.prof = NULL;
				double avg[8] = {0};
				for (unsigned bb = 0; bb < grid; bb++)
					for (int f = 0; f < 8; f++)
						avg[f] += (double)h[8 * bb + f] / grid;
				const double kb = avg[6] > 0 ? avg[6] : 1;
				printf("N %5lld  ranges %d, near: clocks per K-block: copy wait %.0f issue %.0f; "
				       "consumer wait %.0f mma %.0f; K-blocks %.0f, total %.0f per K-block\n",
				       (long long)N, ranges, avg[2] / kb, avg[3] / kb, avg[4] / kb, avg[5] / kb,
				       avg[6], avg[7] / kb);
			}
		}
		fflush(stdout);
	}
	LT(cublasLtDestroy(lt));
	return 0;
}
