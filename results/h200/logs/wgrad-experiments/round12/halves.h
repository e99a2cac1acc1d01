/* halves.h: which half of the L2 each SM sits on, and which half each 4 KiB block of memory is
 * homed on, as l2-near.cu and near2.cu measure them (../../wgrad-experiments.md, twelfth round).
 * Include after diag.h (CHECK).
 *
 * One CTA per SM, all resident (a cooperative launch; the dynamic shared memory allows no second
 * CTA on an SM). The CTA on the warm SM reads the line at every address of a round into the L2;
 * after a grid barrier every other CTA times, one after the other, an L2 hit to each of the lines
 * given to its SM. An SM on the warm SM's half finds every line near; an SM on the other half
 * finds the lines homed on the warm half about 150 cycles slower (ninth round, call 14): that
 * sorts the SMs (256 lines of a scratch buffer each) and then, timed from the other half's SMs,
 * gives the home of any block. The lines must not hold the word 0x7fffffff (the timed loads
 * depend on each loaded value through a comparison with it).
 */
#pragma once

#include <cooperative_groups.h>

#include <algorithm>
#include <vector>

#define HV_MAX_SM   256
#define HV_STRIDE   512          /* lines an SM times per round, at most */
#define HV_BIG_SMEM (150 * 1024) /* one CTA per SM */
/* Inside a 2 MiB page the home is the parity of address bits 12, 13, 15, 17 and 19 (block-address
 * bits 0, 1, 3, 5, 7), flipped by a constant of the page (round12/homes.py). */
#define HV_PMASK 0xABull

__device__ __forceinline__ uint32_t hv_smid()
{
	uint32_t s;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
	return s;
}

__device__ __forceinline__ uint32_t hv_load_cg(uint64_t a)
{
	uint32_t v;
	asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
	return v;
}

__global__ void hv_where(int *ids)
{
	if (threadIdx.x == 0)
		ids[blockIdx.x] = (int)hv_smid();
}

/* The warm SM reads list[0 .. nall); then every other SM times tab[smid * HV_STRIDE + i], i <
 * count (0: no more), into lat in the same layout. */
__global__ void hv_calib(const uint64_t *tab, const uint64_t *list, int count, int warm_sm,
                         int nall, uint16_t *lat, uint32_t *sink)
{
	__shared__ uint32_t keep[2];
	const uint32_t me = hv_smid();
	if (me == (uint32_t)warm_sm) {
		uint32_t s = 0;
		for (int i = threadIdx.x; i < nall; i += blockDim.x)
			s += hv_load_cg(list[i]);
		if (s == 0x12345678u)
			sink[0] = s;
	}
	cooperative_groups::this_grid().sync();
	if (me == (uint32_t)warm_sm || threadIdx.x != 0)
		return;
	uint32_t v = 0;
#pragma unroll 1
	for (int i = 0; i < count; i++) {
		const uint64_t a = tab[me * HV_STRIDE + i];
		if (!a)
			break;
		const long long t0 = clock64();
		const uint32_t next = hv_load_cg(a + (v == 0x7fffffffu ? 64 : 0));
		keep[i & 1] = next; /* waits for the load */
		const long long t1 = clock64();
		const long long d = t1 - t0;
		lat[me * HV_STRIDE + i] = (uint16_t)(d > 65535 ? 65535 : d);
		v = next;
	}
	if (keep[0] == 0x12345678u)
		sink[1] = keep[1];
}

struct hv_halves {
	int sms, warm_sm, thresh;
	std::vector<int> ids;      /* the SMs */
	std::vector<uint8_t> half; /* by SM id: 0 the warm SM's half, 1 the other */
	void *flush;               /* a buffer of 2 × L2, written before each round */
	size_t flush_bytes;
};

/* Time the lines of tab (HV_STRIDE entries per SM id, 0: none) after the warm SM read them. */
static std::vector<uint16_t> hv_round(const hv_halves &c, const std::vector<uint64_t> &tab,
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
	CHECK(cudaMemset(c.flush, 1, c.flush_bytes)); /* the lines out of the L2 */
	const uint64_t *list = d + tab.size();
	int cnt = count, warm = c.warm_sm;
	void *args[] = {&d, &list, &cnt, &warm, &nall, &d_lat, &sink};
	CHECK(cudaLaunchCooperativeKernel((void *)hv_calib, dim3(c.sms), dim3(256), args,
	                                  HV_BIG_SMEM, 0));
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	std::vector<uint16_t> lat(tab.size());
	CHECK(cudaMemcpy(lat.data(), d_lat, tab.size() * 2, cudaMemcpyDeviceToHost));
	CHECK(cudaFree(d));
	CHECK(cudaFree(d_lat));
	CHECK(cudaFree(sink));
	return lat;
}

/* The SMs' halves, from 256 lines of scratch per SM, each in a block of its own (scratch of bytes
 * holds at least 256 blocks of 4 KiB per SM: where two SMs of the other half time the same line,
 * the second may find it near, the first having brought a copy to their half). Prints the
 * latencies and the SMs of the other half. */
static hv_halves hv_measure_halves(const void *scratch, size_t bytes, void *flush,
                                   size_t flush_bytes)
{
	hv_halves c;
	c.flush = flush, c.flush_bytes = flush_bytes;
	CHECK(cudaDeviceGetAttribute(&c.sms, cudaDevAttrMultiProcessorCount, 0));
	CHECK(cudaFuncSetAttribute(hv_where, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                           HV_BIG_SMEM));
	CHECK(cudaFuncSetAttribute(hv_calib, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                           HV_BIG_SMEM));
	int *d_ids;
	CHECK(cudaMalloc(&d_ids, c.sms * sizeof(int)));
	hv_where<<<c.sms, 32, HV_BIG_SMEM>>>(d_ids);
	CHECK(cudaGetLastError());
	c.ids.resize(c.sms);
	CHECK(cudaMemcpy(c.ids.data(), d_ids, c.sms * sizeof(int), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(d_ids));
	std::vector<int> sorted = c.ids;
	std::sort(sorted.begin(), sorted.end());
	if (std::unique(sorted.begin(), sorted.end()) != sorted.end() ||
	    sorted.back() >= HV_MAX_SM) {
		fprintf(stderr, "halves: the CTAs did not land one per SM\n");
		exit(1);
	}
	c.warm_sm = sorted[0];
	const int per = 256;
	const size_t blocks = bytes / 4096;
	if (blocks < (size_t)c.sms * per) {
		fprintf(stderr, "halves: %zu blocks of scratch, fewer than %d\n", blocks,
		        c.sms * per);
		exit(1);
	}
	std::vector<uint64_t> tab((size_t)HV_MAX_SM * HV_STRIDE, 0);
	for (int s = 0; s < c.sms; s++)
		for (int i = 0; i < per; i++)
			tab[(size_t)c.ids[s] * HV_STRIDE + i] =
			    reinterpret_cast<uint64_t>(scratch) +
			    ((size_t)(s * per + i) * 7919 % blocks) * 4096;
	const std::vector<uint16_t> lat = hv_round(c, tab, per);
	std::vector<uint16_t> v;
	for (int s = 0; s < c.sms; s++)
		if (c.ids[s] != c.warm_sm)
			for (int i = 0; i < per; i++)
				v.push_back(lat[(size_t)c.ids[s] * HV_STRIDE + i]);
	std::sort(v.begin(), v.end());
	c.thresh = v[v.size() / 4] + 80; /* a quarter of the lines at least are near */
	printf("# %d SMs, warm SM %d; L2 hit latency percentiles 10/25/50/75/90: %d %d %d %d %d "
	       "cycles; far above %d\n",
	       c.sms, c.warm_sm, v[v.size() / 10], v[v.size() / 4], v[v.size() / 2],
	       v[v.size() * 3 / 4], v[v.size() * 9 / 10], c.thresh);
	if (v[v.size() / 10] < 50) {
		fprintf(stderr, "halves: L2 hits timed at %d cycles: the timing is broken\n",
		        v[v.size() / 10]);
		exit(1);
	}
	c.half.assign(HV_MAX_SM, 0);
	int n1 = 0;
	for (int s = 0; s < c.sms; s++) {
		int f = 0;
		for (int i = 0; i < per; i++)
			f += lat[(size_t)c.ids[s] * HV_STRIDE + i] > c.thresh;
		c.half[c.ids[s]] = c.ids[s] != c.warm_sm && f * 4 > per;
		n1 += c.half[c.ids[s]];
	}
	printf("# SMs on the other half than SM %d: %d of %d:", c.warm_sm, n1, c.sms);
	for (int s = 0; s < HV_MAX_SM; s++)
		if (c.half[s])
			printf(" %d", s);
	printf("\n");
	if (n1 < c.sms / 4) {
		fprintf(stderr, "halves: found no second half of SMs\n");
		exit(1);
	}
	return c;
}

/* The home (0: the warm SM's half, 1: the other) of the line at each address, timed from the
 * other half's SMs, HV_STRIDE lines each per round. *close: how many were timed within 40 cycles
 * of the threshold. */
static std::vector<uint8_t> hv_homes(const hv_halves &c, const std::vector<uint64_t> &addrs,
                                     int *close)
{
	std::vector<int> far;
	for (int s = 0; s < HV_MAX_SM; s++)
		if (c.half[s])
			far.push_back(s);
	std::vector<uint8_t> home(addrs.size());
	*close = 0;
	const size_t per_round = far.size() * HV_STRIDE;
	for (size_t a0 = 0; a0 < addrs.size(); a0 += per_round) {
		std::vector<uint64_t> tab((size_t)HV_MAX_SM * HV_STRIDE, 0);
		for (size_t k = 0; k < far.size(); k++)
			for (int i = 0; i < HV_STRIDE && a0 + k * HV_STRIDE + i < addrs.size(); i++)
				tab[(size_t)far[k] * HV_STRIDE + i] = addrs[a0 + k * HV_STRIDE + i];
		const std::vector<uint16_t> lat = hv_round(c, tab, HV_STRIDE);
		for (size_t k = 0; k < far.size(); k++)
			for (int i = 0; i < HV_STRIDE && a0 + k * HV_STRIDE + i < addrs.size();
			     i++) {
				const int l = lat[(size_t)far[k] * HV_STRIDE + i];
				home[a0 + k * HV_STRIDE + i] =
				    l > c.thresh ? 0 : 1; /* far: the warm half */
				*close += l > c.thresh - 40 && l < c.thresh + 40;
			}
	}
	return home;
}

/* The 2 MiB pages that [x, x + bytes) touches and their constants: bit p of flip is page
 * page0 + p's. */
struct hv_pages {
	uint64_t page0;
	int pages;
	std::vector<uint32_t> flip;
};

static int hv_parity(uint64_t addr)
{
	return __builtin_popcountll((addr >> 12) & HV_PMASK) & 1;
}

/* The constants, by a vote of 4 blocks of each page (those inside the buffer). Prints how many
 * pages had a tie and how many had probes that disagree. */
static hv_pages hv_measure_pages(const hv_halves &c, const void *x, size_t bytes)
{
	const uint64_t x0 = reinterpret_cast<uint64_t>(x), x1 = x0 + bytes;
	hv_pages pg;
	pg.page0 = x0 >> 21;
	pg.pages = (int)(((x1 - 1) >> 21) - pg.page0 + 1);
	pg.flip.assign((pg.pages + 31) / 32, 0);
	const int offs[4] = {0, 37, 101, 250};
	std::vector<uint64_t> addrs;
	for (int p = 0; p < pg.pages; p++)
		for (int o : offs) {
			const uint64_t a = ((pg.page0 + p) << 21) + (uint64_t)o * 4096;
			addrs.push_back(a >= x0 && a < x1 ? a : 0);
		}
	std::vector<uint64_t> inside;
	for (uint64_t a : addrs)
		if (a)
			inside.push_back(a);
	int close = 0;
	const std::vector<uint8_t> home = hv_homes(c, inside, &close);
	int undecided = 0, split = 0;
	size_t at = 0;
	for (int p = 0; p < pg.pages; p++) {
		int votes[2] = {0, 0};
		for (int o = 0; o < 4; o++) {
			const uint64_t a = addrs[4 * p + o];
			if (a)
				votes[home[at++] ^ hv_parity(a)]++;
		}
		undecided += votes[0] == votes[1];
		split += votes[0] && votes[1];
		if (votes[1] > votes[0])
			pg.flip[p >> 5] |= 1u << (p & 31);
	}
	printf("# pages: %d, %d undecided, %d with probes that disagree\n", pg.pages, undecided,
	       split);
	return pg;
}

/* The home of the block at addr by the pages' constants (0 outside them). */
static int hv_home(const hv_pages &pg, uint64_t addr)
{
	const uint64_t p = (addr >> 21) - pg.page0;
	return hv_parity(addr) ^
	       (p < (uint64_t)pg.pages ? (int)((pg.flip[p >> 5] >> (p & 31)) & 1) : 0);
}
