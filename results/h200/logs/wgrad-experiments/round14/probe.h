/* probe.h: what clock.cu and energy.cu share (include it after diag.h): a probe kernel that
 * samples %globaltimer and clock64 on a second stream while other kernels run, one-thread kernels
 * that write %globaltimer (marks) and stop the probe, the SM clock between two times from its
 * samples, the host's time, and percentiles. */
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

static double pct(std::vector<double> v, double q)
{
	if (v.empty())
		return 0;
	std::sort(v.begin(), v.end());
	return v[(size_t)(q * (v.size() - 1) + 0.5)];
}

/* The mean clock (MHz) over the probe's samples inside [t0, t1]: 0 with fewer than two. */
static double mhz_between(const std::vector<unsigned long long> &p, int n, unsigned long long t0,
                          unsigned long long t1)
{
	/* the pairs interleave times and clocks: binary searches over the times */
	int a = -1, z = -1;
	int l = 0, h = n;
	while (l < h) {
		const int m = (l + h) / 2;
		if (p[2 * m] < t0)
			l = m + 1;
		else
			h = m;
	}
	a = l;
	l = a, h = n;
	while (l < h) {
		const int m = (l + h) / 2;
		if (p[2 * m] <= t1)
			l = m + 1;
		else
			h = m;
	}
	z = l - 1;
	if (a < 0 || z <= a)
		return 0;
	const double dt = (double)(p[2 * z] - p[2 * a]), dc = (double)(p[2 * z + 1] - p[2 * a + 1]);
	return dt > 0 ? dc / dt * 1000.0 : 0;
}
