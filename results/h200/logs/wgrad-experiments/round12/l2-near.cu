/* l2-near.cu: does a stream of x run faster when every SM reads only the 4 KiB blocks homed on
 * its own half of the L2? A diagnostic for the gap between gemmq:split and cuBLASLt at large T
 * (../../wgrad-experiments.md, twelfth round), not part of the build.
 *
 *   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Ikernels -Iharness \
 *       -o build-exp/l2-near results/h200/logs/wgrad-experiments/round12/l2-near.cu -lcublasLt
 *   build-exp/l2-near HOMES.bin [MIB [LAUNCHES]]   (defaults: 512 MiB, 15 launches per mode)
 *
 * 1. The halves (halves.h): 256 blocks of the buffer (zeros) timed from every SM sort the SMs
 *    into the two halves; then the first line of every block, timed from the SMs of the warm
 *    SM's other half, 512 each per round, gives the home of every block.
 * 2. The stream. Every warp takes 8 blocks at a time from a queue (an atomic counter) and
 *    reads them, two at a time, with 16-byte loads (one CTA of 512 threads per SM). Modes:
 *    "mixed", one queue of every block in order; "near", one queue per half, each SM taking
 *    from its own half's queue (then from the other's when its own is empty); "far", each SM
 *    taking from the other half's queue first; and "ldg", stream.h's grid-stride loop with no
 *    queue (2 CTAs of 1024 threads per SM).
 *    Each launch follows a 2 × L2 memset, as the harness's flush; the median of LAUNCHES
 *    launches (CUDA events), the modes interleaved.
 *
 * HOMES.bin: uint64 base address, int32 blocks, int32 warm_smid, int32 sms, int32 smid[sms],
 * uint8 half[sms] (0 the warm SM's half, 1 the other), uint8 home[blocks] (0, 1; 255 not
 * measured). Exit status 0, or 1 with a message on stderr when a CUDA call fails.
 *
 * Calls 1 of the twelfth round ran this program before halves.h and stream.h held its pieces
 * (the same steps, in its own code).
 */
#include "../../../../../kernels/gemm_wgmma.cu"
#include "../diag.h"
#include "../stream.h"
#include "halves.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#define BLOCK 4096
#define GRAB  8 /* blocks a warp takes from a queue at a time */

enum { MODE_MIXED, MODE_NEAR, MODE_FAR, MODE_LDG, MODES };
static const char *const mode_name[] = {"mixed", "near", "far", "ldg"};

/* queue q: list + off[q], n[q] entries, counter cnt[q * 1024] (each in its own 4 KiB). */
struct queues {
	const int *list;
	int off[3], n[3];
};

__global__ void __launch_bounds__(512)
    stream(const int4 *x, queues qs, const uint8_t *half, int mode, int *cnt, int *sink)
{
	const int lane = threadIdx.x & 31;
	const int h = half[hv_smid()] == 1 ? 1 : 0;
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
					v[k][w] = b >= 0 ? __ldcs(x + (size_t)b * (BLOCK / 16) +
					                          w * 32 + lane)
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

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help")) {
		fprintf(stderr, "usage: l2-near HOMES.bin [MIB [LAUNCHES]]\n");
		return argc < 2 ? 1 : 0;
	}
	const int64_t mib = argc > 2 ? atoll(argv[2]) : 512;
	const int timed = argc > 3 ? atoi(argv[3]) : 15; /* launches per mode (not stream.h's) */
	const diag_gpu gpu = diag_gpu_open();
	const int sms = gpu.sms;
	/* halves.h times 256 blocks of the buffer from each SM, each block once */
	if (mib < sms || mib > 4096 || timed < 1) {
		fprintf(stderr,
		        "l2-near: MIB must be %d..4096 (256 blocks of 4 KiB per SM) and LAUNCHES "
		        "at least 1\n",
		        sms);
		return 1;
	}
	const int blocks = (int)(mib * 256);
	uint8_t *x;
	CHECK(cudaMalloc(&x, (size_t)blocks * BLOCK));
	CHECK(cudaMemset(x, 0, (size_t)blocks * BLOCK));
	int *sink;
	CHECK(cudaMalloc(&sink, 16 * sizeof(int)));
	const hv_halves c =
	    hv_measure_halves(x, (size_t)blocks * BLOCK, gpu.flush, gpu.flush_bytes);
	std::vector<uint64_t> addrs(blocks);
	for (int b = 0; b < blocks; b++)
		addrs[b] = reinterpret_cast<uint64_t>(x) + (uint64_t)b * BLOCK;
	int close = 0;
	const std::vector<uint8_t> home = hv_homes(c, addrs, &close);
	int n0 = 0;
	for (int b = 0; b < blocks; b++)
		n0 += home[b] == 0;
	printf("# %d blocks: %d homed on SM %d's half, %d on the other; %d within 40 cycles of the "
	       "threshold\n",
	       blocks, n0, c.warm_sm, blocks - n0, close);
	FILE *f = fopen(argv[1], "wb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	const uint64_t base = (uint64_t)(uintptr_t)x;
	fwrite(&base, 8, 1, f);
	fwrite(&blocks, 4, 1, f);
	fwrite(&c.warm_sm, 4, 1, f);
	fwrite(&sms, 4, 1, f);
	fwrite(c.ids.data(), 4, sms, f);
	for (int s = 0; s < sms; s++)
		fputc(c.half[c.ids[s]], f);
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
	CHECK(cudaMalloc(&d_half, HV_MAX_SM));
	CHECK(cudaMemcpy(d_half, c.half.data(), HV_MAX_SM, cudaMemcpyHostToDevice));
	CHECK(cudaMalloc(&d_cnt, 3 * 1024 * sizeof(int)));
	qs.list = d_list;
	cudaEvent_t e0, e1;
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	std::vector<float> us[MODES];
	const int64_t words = (int64_t)blocks * (BLOCK / 16);
	for (int r = 0; r < timed + 1; r++)
		for (int m = 0; m < MODES; m++) {
			CHECK(cudaMemsetAsync(gpu.flush, r, gpu.flush_bytes));
			CHECK(cudaMemsetAsync(d_cnt, 0, 3 * 1024 * sizeof(int)));
			CHECK(cudaEventRecord(e0));
			if (m == MODE_LDG)
				ldg_stream<<<2 * sms, 1024>>>((const int4 *)x, words, sink);
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
		printf("%-6s %d MiB  median %7.1f us (min %7.1f, max %7.1f)  %.3f TB/s\n",
		       mode_name[m], (int)mib, med, us[m].front(), us[m].back(),
		       (double)blocks * BLOCK / med / 1e6);
	}
	return 0;
}
