/* bandwidth.cu: see bandwidth.h. */
#include "bandwidth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "cuda_check.h"

/* Read every 16-byte word of in[0..n) once; XOR them into one word per thread, written only when
 * it equals a value no input makes likely, so the loads stay and the writes do not count. */
static __global__ void read_kernel(const uint4 *__restrict__ in, size_t n, unsigned *sink)
{
	unsigned acc = 0;
	const size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		uint4 v = __ldcs(in + i); /* streaming: evict first, no reuse */
		acc ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	if (acc == 0x9e3779b9u)
		sink[0] = acc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

extern "C" gq_status gq_bandwidth_measure(int64_t l2_bytes, gq_clocks *clocks, void *stream,
                                          gq_bandwidth *bw, gq_error *err)
{
	memset(bw, 0, sizeof(*bw));
	bw->theoretical_gbps = NAN;
	cudaStream_t st = (cudaStream_t)stream;
	int64_t bytes = 16 * l2_bytes > ((int64_t)2 << 30) ? 16 * l2_bytes : ((int64_t)2 << 30);
	int device = 0, sms = 0;
	GQ_CUDA_CHECK(cudaGetDevice(&device), err);
	GQ_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), err);
	void *buf = NULL;
	unsigned *sink = NULL;
	cudaEvent_t ev[2 * (GQ_BANDWIDTH_RUNS + 1)] = {};
	double gbps[GQ_BANDWIDTH_RUNS];
	gq_status s = GQ_OK;
	cudaError_t c = cudaMalloc(&buf, (size_t)bytes);
	if (c == cudaSuccess)
		c = cudaMalloc((void **)&sink, sizeof(unsigned));
	if (c == cudaSuccess)
		c = cudaMemsetAsync(buf, 0x5a, (size_t)bytes, st);
	for (int i = 0; c == cudaSuccess && i < 2 * (GQ_BANDWIDTH_RUNS + 1); i++)
		c = cudaEventCreate(&ev[i]);
	const int threads = 512, blocks = 4 * sms;
	for (int r = 0; c == cudaSuccess && r <= GQ_BANDWIDTH_RUNS; r++) { /* run 0: warm-up */
		c = cudaEventRecord(ev[2 * r], st);
		if (c == cudaSuccess) {
			read_kernel<<<blocks, threads, 0, st>>>((const uint4 *)buf,
			                                        (size_t)bytes / sizeof(uint4), sink);
			c = cudaGetLastError();
		}
		if (c == cudaSuccess)
			c = cudaEventRecord(ev[2 * r + 1], st);
	}
	if (c == cudaSuccess)
		c = cudaStreamSynchronize(st);
	for (int r = 1; c == cudaSuccess && r <= GQ_BANDWIDTH_RUNS; r++) {
		float ms = 0;
		c = cudaEventElapsedTime(&ms, ev[2 * r], ev[2 * r + 1]);
		gbps[r - 1] = ms > 0 ? (double)bytes / ((double)ms * 1e6) : 0;
	}
	if (c != cudaSuccess)
		s = gq_error_set(err, GQ_ERR_DEVICE, GQ_HERE, "measuring the read bandwidth: %s",
		                 gq_cuda_error_text(c));
	for (int i = 0; i < 2 * (GQ_BANDWIDTH_RUNS + 1); i++)
		if (ev[i])
			(void)cudaEventDestroy(ev[i]);
	(void)cudaFree(buf);
	(void)cudaFree(sink);
	if (s != GQ_OK)
		return s;
	qsort(gbps, GQ_BANDWIDTH_RUNS, sizeof(double), cmp_double);
	bw->measured_gbps = gbps[GQ_BANDWIDTH_RUNS - 1];
	bw->median_gbps = gbps[GQ_BANDWIDTH_RUNS / 2];
	bw->bytes = bytes;
	bw->runs = GQ_BANDWIDTH_RUNS;
	snprintf(bw->method, sizeof(bw->method),
	         "streaming read (16-byte __ldcs loads, %d blocks x %d threads) of %.2f GiB, "
	         "best of %d runs after a warm-up, CUDA events; median %.0f GB/s",
	         blocks, threads, (double)bytes / (1 << 30), GQ_BANDWIDTH_RUNS, bw->median_gbps);
	unsigned mhz = 0, bits = 0;
	if (gq_clocks_memory(clocks, &mhz, &bits) == 0 && mhz && bits) {
		bw->theoretical_gbps = (double)mhz * 1e6 * 2 * bits / 8 / 1e9;
		snprintf(bw->theoretical_method, sizeof(bw->theoretical_method),
		         "NVML: maximum memory clock %u MHz x 2 (double data rate) x %u-bit bus", mhz,
		         bits);
	} else
		snprintf(bw->theoretical_method, sizeof(bw->theoretical_method),
		         "NVML gave no memory clock or bus width");
	return GQ_OK;
}
