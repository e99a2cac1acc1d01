/* l2-halves.cu: which half of the L2 each 128-byte line of a buffer is homed on, as each SM sees
 * it.
 *
 *   nvcc -O2 -arch=sm_90a -o build-exp/l2-halves \
 *       results/h200/logs/wgrad-experiments/round9/l2-halves.cu
 *   build-exp/l2-halves OUT.bin [LINES]        (LINES 128-byte lines, default 4096)
 *
 * For every SM in turn: the L2 is emptied of the buffer (a read of 256 MiB of other data), one
 * CTA brings the buffer's lines into the L2 (ld.global.cg), then the CTA that runs on the SM
 * measures, one line after the other, the latency of an L2 hit to each line (a pointer chase:
 * each line holds the index of the next, so every load waits for the one before; clock64 around
 * the load and a shared-memory store of its value), twice over (pass 0, then pass 1). A line
 * homed on the SM's own half of the L2 should answer faster than one homed on the other half,
 * whose request crosses the fabric between them.
 *
 * OUT.bin: int32 sms, int32 lines, int32 smid[sms] (the SM each row was measured on), int32
 * warm_smid[sms] (the SM that brought the lines into L2 before it), then uint16
 * latency[2][sms][lines] in SM clock cycles. Exit status 0, or 1 with a message on stderr
 * when a CUDA call fails.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x)                                                                                   \
	do {                                                                                           \
		cudaError_t e_ = (x);                                                                      \
		if (e_ != cudaSuccess) {                                                                   \
			fprintf(stderr, "l2-halves: %s failed at line %d: %s\n", #x, __LINE__,                 \
			        cudaGetErrorString(e_));                                                       \
			exit(1);                                                                               \
		}                                                                                          \
	} while (0)

__device__ __forceinline__ uint32_t smid()
{
	uint32_t s;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
	return s;
}

__device__ __forceinline__ uint32_t load_cg(const uint32_t *p)
{
	uint32_t v;
	asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
	return v;
}

/* Read 'words' words of scratch (evicts the buffer from L2); the sum keeps the loads. */
__global__ void evict(const uint4 *scratch, size_t n, uint32_t *sink)
{
	uint32_t s = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		const uint4 v = __ldcg(scratch + i);
		s += v.x ^ v.y ^ v.z ^ v.w;
	}
	if (s == 0x12345678u)
		*sink = s;
}

/* One thread follows the chain through every line: the lines come into L2. sink[1]: its SM. */
__global__ void warm(const uint32_t *buf, int lines, uint32_t *sink)
{
	uint32_t j = 0;
	for (int i = 0; i < lines; i++)
		j = load_cg(buf + (size_t)j * 32);
	sink[0] = j;
	sink[1] = smid();
}

/* The first CTA to reach SM target times the chain twice; every other CTA leaves at once. */
__global__ void probe(const uint32_t *buf, int lines, int target, uint16_t *lat, int *found)
{
	__shared__ uint32_t keep[2];
	if (threadIdx.x != 0 || smid() != (uint32_t)target || atomicCAS(found, 0, 1) != 0)
		return;
	for (int pass = 0; pass < 2; pass++) {
		uint32_t j = 0;
		/* not unrolled: unrolled, the compiler's schedule of the clock reads made every fourth
		 * latency near zero and the next three long (call 14, results/h200/logs/
		 * wgrad-experiments.md, ninth round) */
#pragma unroll 1
		for (int i = 0; i < lines; i++) {
			const long long t0 = clock64();
			const uint32_t next = load_cg(buf + (size_t)j * 32);
			keep[i & 1] = next; /* waits for the load */
			const long long t1 = clock64();
			const long long d = t1 - t0;
			lat[(size_t)pass * lines + j] = (uint16_t)(d > 65535 ? 65535 : d);
			j = next;
		}
	}
	__syncwarp();
	if (keep[0] == 0xFFFFFFFFu)
		lat[0] = 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help")) {
		fprintf(stderr, "usage: l2-halves OUT.bin [LINES]\n");
		return argc < 2 ? 1 : 0;
	}
	const int lines = argc > 2 ? atoi(argv[2]) : 4096;
	if (lines < 2 || lines > 1 << 20) {
		fprintf(stderr, "l2-halves: LINES must be 2..1048576, not %s\n", argv[2]);
		return 1;
	}
	int sms = 0;
	CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	/* the chain: line i holds i + 1, the last 0 */
	uint32_t *host = (uint32_t *)calloc((size_t)lines * 32, sizeof(uint32_t));
	for (int i = 0; i < lines; i++)
		host[(size_t)i * 32] = (uint32_t)((i + 1) % lines);
	uint32_t *buf, *sink;
	uint4 *scratch;
	uint16_t *lat;
	int *found;
	const size_t scratch_n = (256u << 20) / sizeof(uint4);
	CHECK(cudaMalloc(&buf, (size_t)lines * 128));
	CHECK(cudaMemcpy(buf, host, (size_t)lines * 128, cudaMemcpyHostToDevice));
	CHECK(cudaMalloc(&scratch, scratch_n * sizeof(uint4)));
	CHECK(cudaMemset(scratch, 1, scratch_n * sizeof(uint4)));
	CHECK(cudaMalloc(&sink, 2 * sizeof(uint32_t)));
	CHECK(cudaMalloc(&lat, (size_t)2 * lines * sizeof(uint16_t)));
	CHECK(cudaMalloc(&found, sizeof(int)));
	uint16_t *all = (uint16_t *)malloc((size_t)2 * sms * lines * sizeof(uint16_t));
	int32_t *ids = (int32_t *)malloc((size_t)sms * sizeof(int32_t));
	int32_t *warm_ids = (int32_t *)malloc((size_t)sms * sizeof(int32_t));
	int rows = 0;
	for (int t = 0; t < sms; t++) {
		evict<<<2 * sms, 512>>>(scratch, scratch_n, sink);
		CHECK(cudaGetLastError());
		warm<<<1, 1>>>(buf, lines, sink);
		CHECK(cudaGetLastError());
		CHECK(cudaMemset(found, 0, sizeof(int)));
		probe<<<2 * sms, 32>>>(buf, lines, t, lat, found);
		CHECK(cudaGetLastError());
		CHECK(cudaDeviceSynchronize());
		int f = 0;
		uint32_t w[2];
		CHECK(cudaMemcpy(&f, found, sizeof(int), cudaMemcpyDeviceToHost));
		CHECK(cudaMemcpy(w, sink, sizeof(w), cudaMemcpyDeviceToHost));
		if (!f) {
			fprintf(stderr, "l2-halves: no CTA ran on SM %d; row left out\n", t);
			continue;
		}
		uint16_t *row = (uint16_t *)malloc((size_t)2 * lines * sizeof(uint16_t));
		CHECK(cudaMemcpy(row, lat, (size_t)2 * lines * sizeof(uint16_t), cudaMemcpyDeviceToHost));
		for (int pass = 0; pass < 2; pass++)
			memcpy(all + ((size_t)pass * sms + rows) * lines, row + (size_t)pass * lines,
			       (size_t)lines * sizeof(uint16_t));
		free(row);
		warm_ids[rows] = (int32_t)w[1];
		ids[rows++] = t;
	}
	FILE *fp = fopen(argv[1], "wb");
	if (!fp) {
		fprintf(stderr, "l2-halves: cannot write %s\n", argv[1]);
		return 1;
	}
	fwrite(&rows, sizeof(int32_t), 1, fp);
	fwrite(&lines, sizeof(int32_t), 1, fp);
	fwrite(ids, sizeof(int32_t), (size_t)rows, fp);
	fwrite(warm_ids, sizeof(int32_t), (size_t)rows, fp);
	for (int pass = 0; pass < 2; pass++)
		fwrite(all + (size_t)pass * sms * lines, sizeof(uint16_t), (size_t)rows * lines, fp);
	fclose(fp);
	fprintf(stderr, "l2-halves: %d SMs x %d lines written to %s\n", rows, lines, argv[1]);
	return 0;
}
