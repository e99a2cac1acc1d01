/* l2-near.cu: does a stream of x run faster when every SM reads only the 4 KiB blocks homed on
 * its own half of the L2? A diagnostic for the gap between gemmq:split and cuBLASLt at large T
 * (../../wgrad-experiments.md, twelfth round), not part of the build.
 *
 *   nvcc -O3 -std=c++17 -arch=sm_90a -o build-exp/l2-near \
 *       results/h200/logs/wgrad-experiments/round12/l2-near.cu
 *   build-exp/l2-near HOMES.bin [MIB [LAUNCHES]]   (defaults: 512 MiB, 15 launches per mode)
 *
 * 1. The halves. One CTA per SM, all resident (cooperative launch). The CTA on the warm SM reads
 *    the first line of every block of a round into the L2; after a grid barrier every other CTA
 *    times, one after the other, an L2 hit to the first line of each block given to its SM. An
 *    SM on the warm SM's half finds every line near; an SM on the other half finds the blocks
 *    homed on the warm half about 150 cycles slower (ninth round, call 14). Round 0 gives 256
 *    blocks to every SM and sorts the SMs into the two halves; the later rounds give every block
 *    of the buffer to the SMs of the far half, 512 each, and so find the home of every block.
 * 2. The stream. Every warp takes 8 blocks at a time from a queue (an atomic counter) and
 *    reads them, two at a time, with 16-byte loads (one CTA of 512 threads per SM). Modes:
 *    "mixed", one queue of every block in order; "near", one queue per half, each SM taking
 *    from its own half's queue (then from the other's when its own is empty); "far", each SM
 *    taking from the other half's queue first; and "ldg", a grid-stride loop with no queue.
 *    Each launch follows a 2 × L2 memset, as the harness's flush; the median of LAUNCHES
 *    launches (CUDA events), the modes interleaved.
 *
 * HOMES.bin: uint64 base address, int32 blocks, int32 warm_smid, int32 sms, int32 smid[sms],
 * uint8 half[sms] (0 the warm SM's half, 1 the other), uint8 home[blocks] (0, 1; 255 not
 * measured). Exit status 0, or 1 with a message on stderr when a CUDA call fails.
 */
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

namespace cg = cooperative_groups;

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                              \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "l2-near: %s failed at line %d: %s\n", #x, __LINE__,        \
			        cudaGetErrorString(e_));                                           \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

#define MAX_SM 256
#define BLOCK 4096
#define GRAB 8 /* blocks a warp takes from a queue at a time */

__device__ __forceinline__ uint32_t smid()
{
	uint32_t s;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
	return s;
}

__device__ __forceinline__ uint32_t load_cg(const void *p)
{
	uint32_t v;
	asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
	return v;
}

/* Which SM each CTA runs on (one CTA per SM: the dynamic shared memory allows no second). */
__global__ void where(int *ids)
{
	if (threadIdx.x == 0)
		ids[blockIdx.x] = (int)smid();
}

/* One round of the halves: tab[smid * stride + i], i < count, is the i-th block that SM times
 * (-1: none); lat has the same layout. */
__global__ void calib(const uint8_t *x, const int *tab, int stride, int count, int warm_sm,
                      const int *all, int nall, uint16_t *lat, uint32_t *sink)
{
	__shared__ uint32_t keep[2];
	const uint32_t me = smid();
	if (me == (uint32_t)warm_sm) {
		uint32_t s = 0;
		for (int i = threadIdx.x; i < nall; i += blockDim.x)
			s += load_cg(x + (size_t)all[i] * BLOCK);
		if (s == 0x12345678u)
			sink[0] = s;
	}
	cg::this_grid().sync();
	if (me == (uint32_t)warm_sm || threadIdx.x != 0)
		return;
	uint32_t v = 0;
#pragma unroll 1
	for (int i = 0; i < count; i++) {
		const int b = tab[me * stride + i];
		if (b < 0)
			break;
		const long long t0 = clock64();
		const uint32_t next = load_cg(x + (size_t)b * BLOCK + v); /* x is zero: v stays 0 */
		keep[i & 1] = next;                                        /* waits for the load */
		const long long t1 = clock64();
		const long long d = t1 - t0;
		lat[me * stride + i] = (uint16_t)(d > 65535 ? 65535 : d);
		v = next;
	}
	if (keep[0] == 0xFFFFFFFFu)
		sink[1] = keep[1];
}

enum { MODE_MIXED, MODE_NEAR, MODE_FAR, MODE_LDG, MODES };
static const char *const mode_name[] = {"mixed", "near", "far", "ldg"};

/* queue q: list + off[q], n[q] entries, counter cnt[q * 1024] (each in its own 4 KiB). */
struct queues {
	const int *list;
	int off[3], n[3];
};

__global__ void __launch_bounds__(512) stream(const int4 *x, queues qs, const uint8_t *half,
                                              int mode, int *cnt, uint32_t *sink)
{
	const int lane = threadIdx.x & 31;
	const int h = half[smid()] == 1 ? 1 : 0;
	int q, fallback;
	if (mode == MODE_MIXED)
		q = 2, fallback = -1;
	else if (mode == MODE_NEAR)
		q = h, fallback = 1 - h;
	else
		q = 1 - h, fallback = h;
	uint32_t acc = 0;
	for (;;) {
		int i = 0;
		if (lane == 0)
			i = atomicAdd(cnt + q * 1024, GRAB);
		i = __shfl_sync(0xffffffffu, i, 0);
		if (i >= qs.n[q]) {
			if (fallback < 0)
				break;
			q = fallback, fallback = -1;
			continue;
		}
		for (int k0 = 0; k0 < GRAB; k0 += 2) {
			int4 v[2][8];
#pragma unroll
			for (int k = 0; k < 2; k++) {
				const int j = i + k0 + k;
				const int b = j < qs.n[q] ? qs.list[qs.off[q] + j] : -1;
#pragma unroll
				for (int w = 0; w < 8; w++)
					v[k][w] = b >= 0 ? __ldcs(x + (size_t)b * (BLOCK / 16) + w * 32 + lane)
					                 : make_int4(0, 0, 0, 0);
			}
#pragma unroll
			for (int k = 0; k < 2; k++)
#pragma unroll
				for (int w = 0; w < 8; w++)
					acc ^= v[k][w].x ^ v[k][w].y ^ v[k][w].z ^ v[k][w].w;
		}
	}
	if (acc == 0x12345678u)
		sink[2] = acc;
}

__global__ void ldg(const int4 *x, int64_t words, uint32_t *sink)
{
	uint32_t acc = 0;
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < words;
	     i += (int64_t)gridDim.x * blockDim.x) {
		const int4 v = __ldcs(x + i);
		acc ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	if (acc == 0x12345678u)
		sink[3] = acc;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help")) {
		fprintf(stderr, "usage: l2-near HOMES.bin [MIB [LAUNCHES]]\n");
		return argc < 2 ? 1 : 0;
	}
	const int64_t mib = argc > 2 ? atoll(argv[2]) : 512;
	const int launches = argc > 3 ? atoi(argv[3]) : 15;
	if (mib < 16 || mib > 4096 || launches < 1) {
		fprintf(stderr, "l2-near: MIB must be 16..4096 and LAUNCHES at least 1\n");
		return 1;
	}
	const int blocks = (int)(mib * 256);
	int sms = 0, l2 = 0;
	CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
	uint8_t *x;
	CHECK(cudaMalloc(&x, (size_t)blocks * BLOCK));
	CHECK(cudaMemset(x, 0, (size_t)blocks * BLOCK));
	uint32_t *sink;
	CHECK(cudaMalloc(&sink, 16 * sizeof(uint32_t)));
	const size_t flush_bytes = 2 * (size_t)l2;
	void *flush;
	CHECK(cudaMalloc(&flush, flush_bytes));

	/* the SMs */
	const int big = 150 * 1024;
	CHECK(cudaFuncSetAttribute(where, cudaFuncAttributeMaxDynamicSharedMemorySize, big));
	CHECK(cudaFuncSetAttribute(calib, cudaFuncAttributeMaxDynamicSharedMemorySize, big));
	int *d_ids;
	CHECK(cudaMalloc(&d_ids, sms * sizeof(int)));
	where<<<sms, 32, big>>>(d_ids);
	CHECK(cudaGetLastError());
	std::vector<int> ids(sms);
	CHECK(cudaMemcpy(ids.data(), d_ids, sms * sizeof(int), cudaMemcpyDeviceToHost));
	std::vector<int> sorted = ids;
	std::sort(sorted.begin(), sorted.end());
	if (std::unique(sorted.begin(), sorted.end()) != sorted.end() || sorted.back() >= MAX_SM) {
		fprintf(stderr, "l2-near: the CTAs did not land one per SM\n");
		return 1;
	}
	const int warm_sm = sorted[0];

	const int per = 512;
	int *d_tab, *d_all;
	uint16_t *d_lat;
	CHECK(cudaMalloc(&d_tab, (size_t)MAX_SM * per * sizeof(int)));
	CHECK(cudaMalloc(&d_all, (size_t)MAX_SM * per * sizeof(int)));
	CHECK(cudaMalloc(&d_lat, (size_t)MAX_SM * per * sizeof(uint16_t)));
	std::vector<int> tab((size_t)MAX_SM * per), all;
	std::vector<uint16_t> lat((size_t)MAX_SM * per);
	std::vector<uint8_t> half(MAX_SM, 255), home(blocks, 255);
	const int threads = 256;

	auto round = [&](int n_per) {
		CHECK(cudaMemcpy(d_tab, tab.data(), tab.size() * sizeof(int), cudaMemcpyHostToDevice));
		CHECK(cudaMemcpy(d_all, all.data(), all.size() * sizeof(int), cudaMemcpyHostToDevice));
		CHECK(cudaMemsetAsync(flush, 1, flush_bytes)); /* the buffer out of the L2 */
		int nall = (int)all.size(), stride = per, count = n_per, w = warm_sm;
		const uint8_t *cx = x;
		void *args[] = {&cx, &d_tab, &stride, &count, &w, &d_all, &nall, &d_lat, &sink};
		CHECK(cudaLaunchCooperativeKernel((void *)calib, dim3(sms), dim3(threads), args, big, 0));
		CHECK(cudaGetLastError());
		CHECK(cudaDeviceSynchronize());
		CHECK(cudaMemcpy(lat.data(), d_lat, lat.size() * sizeof(uint16_t),
		                 cudaMemcpyDeviceToHost));
	};

	/* round 0: 256 blocks to every SM, spread over the buffer */
	std::fill(tab.begin(), tab.end(), -1);
	all.clear();
	const int per0 = 256;
	for (int s = 0; s < sms; s++)
		for (int i = 0; i < per0; i++) {
			const int b = (int)(((int64_t)(s * per0 + i) * 7919) % blocks);
			tab[(size_t)ids[s] * per + i] = b;
			all.push_back(b);
		}
	round(per0);
	std::vector<uint16_t> v0;
	for (int s = 0; s < sms; s++)
		if (ids[s] != warm_sm)
			for (int i = 0; i < per0; i++)
				v0.push_back(lat[(size_t)ids[s] * per + i]);
	std::sort(v0.begin(), v0.end());
	const int thresh = v0[v0.size() / 4] + 80; /* a quarter of the lines at least are near */
	if (v0[v0.size() / 10] < 50) {
		fprintf(stderr, "l2-near: L2 hits timed at %d cycles: the timing is broken\n",
		        v0[v0.size() / 10]);
		return 1;
	}
	int nfar = 0;
	printf("# %d SMs, L2 %d bytes, warm SM %d; L2 hit latency percentiles 10/25/50/75/90: "
	       "%d %d %d %d %d cycles; far above %d\n",
	       sms, l2, warm_sm, v0[v0.size() / 10], v0[v0.size() / 4], v0[v0.size() / 2],
	       v0[v0.size() * 3 / 4], v0[v0.size() * 9 / 10], thresh);
	for (int s = 0; s < sms; s++) {
		int f = 0;
		for (int i = 0; i < per0; i++)
			f += lat[(size_t)ids[s] * per + i] > thresh;
		half[ids[s]] = ids[s] == warm_sm ? 0 : (f * 4 > per0 ? 1 : 0);
		nfar += half[ids[s]];
	}
	printf("# SMs on the other half than SM %d: %d of %d:", warm_sm, nfar, sms);
	for (int s = 0; s < MAX_SM; s++)
		if (half[s] == 1)
			printf(" %d", s);
	printf("\n");
	if (nfar < sms / 4) {
		fprintf(stderr, "l2-near: found no second half of SMs\n");
		return 1;
	}

	/* rounds 1..: every block to the far half's SMs */
	std::vector<int> far_sms;
	for (int s = 0; s < MAX_SM; s++)
		if (half[s] == 1)
			far_sms.push_back(s);
	int ambiguous = 0;
	for (int b0 = 0; b0 < blocks; b0 += (int)far_sms.size() * per) {
		std::fill(tab.begin(), tab.end(), -1);
		all.clear();
		for (size_t k = 0; k < far_sms.size(); k++)
			for (int i = 0; i < per; i++) {
				const int b = b0 + (int)k * per + i;
				if (b < blocks) {
					tab[(size_t)far_sms[k] * per + i] = b;
					all.push_back(b);
				}
			}
		round(per);
		for (size_t k = 0; k < far_sms.size(); k++)
			for (int i = 0; i < per; i++) {
				const int b = b0 + (int)k * per + i;
				if (b >= blocks)
					break;
				const int l = lat[(size_t)far_sms[k] * per + i];
				home[b] = l > thresh ? 0 : 1; /* far from a second-half SM: homed on the first */
				ambiguous += l > thresh - 40 && l < thresh + 40;
			}
	}
	int n0 = 0;
	for (int b = 0; b < blocks; b++)
		n0 += home[b] == 0;
	printf("# %d blocks: %d homed on SM %d's half, %d on the other; %d within 40 cycles of the "
	       "threshold\n",
	       blocks, n0, warm_sm, blocks - n0, ambiguous);
	FILE *f = fopen(argv[1], "wb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	const uint64_t base = (uint64_t)(uintptr_t)x;
	fwrite(&base, 8, 1, f);
	fwrite(&blocks, 4, 1, f);
	fwrite(&warm_sm, 4, 1, f);
	fwrite(&sms, 4, 1, f);
	fwrite(ids.data(), 4, sms, f);
	for (int s = 0; s < sms; s++)
		fputc(half[ids[s]], f);
	fwrite(home.data(), 1, blocks, f);
	fclose(f);

	/* the stream */
	std::vector<int> list;
	queues qs;
	for (int q = 0; q < 2; q++) {
		qs.off[q] = (int)list.size();
		for (int b = 0; b < blocks; b++)
			if (home[b] == q)
				list.push_back(b);
		qs.n[q] = (int)list.size() - qs.off[q];
	}
	qs.off[2] = (int)list.size();
	for (int b = 0; b < blocks; b++)
		list.push_back(b);
	qs.n[2] = blocks;
	int *d_list, *d_cnt;
	uint8_t *d_half;
	CHECK(cudaMalloc(&d_list, list.size() * sizeof(int)));
	CHECK(cudaMemcpy(d_list, list.data(), list.size() * sizeof(int), cudaMemcpyHostToDevice));
	CHECK(cudaMalloc(&d_half, MAX_SM));
	CHECK(cudaMemcpy(d_half, half.data(), MAX_SM, cudaMemcpyHostToDevice));
	CHECK(cudaMalloc(&d_cnt, 3 * 1024 * sizeof(int)));
	qs.list = d_list;
	cudaEvent_t e0, e1;
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	std::vector<float> us[MODES];
	const int64_t words = (int64_t)blocks * (BLOCK / 16);
	for (int r = 0; r < launches + 1; r++)
		for (int m = 0; m < MODES; m++) {
			CHECK(cudaMemsetAsync(flush, r, flush_bytes));
			CHECK(cudaMemsetAsync(d_cnt, 0, 3 * 1024 * sizeof(int)));
			CHECK(cudaEventRecord(e0));
			if (m == MODE_LDG)
				ldg<<<2 * sms, 1024>>>((const int4 *)x, words, sink);
			else
				stream<<<sms, 512>>>((const int4 *)x, qs, d_half, m, d_cnt, sink);
			CHECK(cudaGetLastError());
			CHECK(cudaEventRecord(e1));
			CHECK(cudaEventSynchronize(e1));
			float t;
			CHECK(cudaEventElapsedTime(&t, e0, e1));
			if (r > 0) /* the first round is a warm-up */
				us[m].push_back(t * 1000.f);
		}
	for (int m = 0; m < MODES; m++) {
		std::sort(us[m].begin(), us[m].end());
		const float med = us[m][us[m].size() / 2];
		printf("%-6s %d MiB  median %7.1f us (min %7.1f, max %7.1f)  %.3f TB/s\n", mode_name[m],
		       (int)mib, med, us[m].front(), us[m].back(),
		       (double)blocks * BLOCK / med / 1e6);
	}
	return 0;
}
