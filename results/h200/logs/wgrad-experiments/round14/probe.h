/* probe.h: what clock.cu and energy.cu share (include it after diag.h and stream.h): a probe
 * kernel that samples %globaltimer and clock64 on a second stream while other kernels run, its
 * buffers and how it is started and stopped, one-thread kernels that write %globaltimer (marks),
 * the SM clock between two times from its samples, the host's time, and the split programs that
 * both time. */
#pragma once

#include <sys/time.h>

#include <algorithm>
#include <vector>

__device__ __forceinline__ unsigned long long clk_now()
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* Lane 0 writes (globaltimer, clock64) pairs until *stop is set or max pairs are written; the
 * count to *n and its SM to *sm. */
__global__ void clk_probe(unsigned long long *pairs, int max, volatile int *stop, int *n, int *sm)
{
	if (threadIdx.x != 0)
		return;
	unsigned s;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
	*sm = (int)s;
	int i = 0;
	while (i < max && !*stop) {
		pairs[2 * i] = clk_now();
		pairs[2 * i + 1] = clock64();
		i++;
		__nanosleep(500);
	}
	*n = i;
}

__global__ void clk_mark(unsigned long long *at)
{
	*at = clk_now();
}

__global__ void clk_stop(volatile int *stop)
{
	*stop = 1;
}

static double host_now()
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec * 1e-6;
}

/* The mean clock (MHz) over the probe's samples inside [t0, t1]: 0 with fewer than two. */
static double mhz_between(const std::vector<unsigned long long> &p, int n, unsigned long long t0,
                          unsigned long long t1)
{
	/* the pairs interleave times and clocks: binary searches over the times for the first
	 * sample at or after t0 (a) and the last at or before t1 (z) */
	int l = 0, h = n;
	while (l < h) {
		const int m = (l + h) / 2;
		if (p[2 * m] < t0)
			l = m + 1;
		else
			h = m;
	}
	const int a = l;
	h = n;
	while (l < h) {
		const int m = (l + h) / 2;
		if (p[2 * m] <= t1)
			l = m + 1;
		else
			h = m;
	}
	const int z = l - 1;
	if (z <= a)
		return 0;
	const double dt = (double)(p[2 * z] - p[2 * a]), dc = (double)(p[2 * z + 1] - p[2 * a + 1]);
	return dt > 0 ? dc / dt * 1000.0 : 0;
}

/* The probe's buffers (max pairs), its stream and the host's copy of its samples. */
struct clk_probe_buf {
	unsigned long long *pairs;
	int *stop, *n, *sm;
	int max;
	cudaStream_t side;
	std::vector<unsigned long long> host;
};

static clk_probe_buf clk_probe_open(int max)
{
	clk_probe_buf b;
	b.max = max;
	CHECK(cudaMalloc(&b.pairs, (size_t)max * 16));
	CHECK(cudaMalloc(&b.stop, 4));
	CHECK(cudaMalloc(&b.n, 4));
	CHECK(cudaMalloc(&b.sm, 4));
	CHECK(cudaStreamCreateWithFlags(&b.side, cudaStreamNonBlocking));
	b.host.resize((size_t)max * 2);
	return b;
}

/* Start the probe once the device is idle. */
static void clk_probe_start(clk_probe_buf &b)
{
	CHECK(cudaMemset(b.stop, 0, 4));
	CHECK(cudaDeviceSynchronize());
	clk_probe<<<1, 32, 0, b.side>>>(b.pairs, b.max, b.stop, b.n, b.sm);
	CHECK(cudaGetLastError());
}

/* Stop the probe after the default stream's work and fetch its samples into b.host: their
 * count, and its SM to *sm where sm is not NULL. */
static int clk_probe_end(clk_probe_buf &b, int *sm)
{
	clk_stop<<<1, 1>>>(b.stop);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	int n = 0;
	CHECK(cudaMemcpy(&n, b.n, 4, cudaMemcpyDeviceToHost));
	if (sm)
		CHECK(cudaMemcpy(sm, b.sm, 4, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(b.host.data(), b.pairs, (size_t)n * 16, cudaMemcpyDeviceToHost));
	return n;
}

/* The split programs that matter at d_out 128 (n128 and n256 with 4 splits at 4096, n128 with 3
 * at 5120) and, for comparison, 4096x32 n128:s4: out[m, n] with a bm×bn tile. */
struct clk_case {
	int64_t n, m;
	int bm, bn, splits;
};
static const clk_case clk_cases[] = {
    {4096, 128, 128, 128, 4}, {4096, 128, 64, 256, 4}, {5120, 128, 128, 128, 3}, {4096, 32, 64, 128, 4}};

/* The cases at N = only_n (every case where only_n is 0). */
static std::vector<clk_case> clk_cases_at(int64_t only_n)
{
	std::vector<clk_case> v;
	for (const clk_case &c : clk_cases)
		if (!only_n || c.n == only_n)
			v.push_back(c);
	return v;
}
