/* smclock.cu: the SM clock over stream work (see smclock.h). */
#include "smclock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

/* The block on SM 0 (lane 0) writes %globaltimer then clock64 into stamp[0..1]. */
static __global__ void gq_smclock_kernel(uint64_t *stamp)
{
	uint32_t sm;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
	if (sm != 0 || threadIdx.x != 0)
		return;
	uint64_t ns;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
	const uint64_t clk = clock64();
	stamp[0] = ns;
	stamp[1] = clk;
}

/* The bytes of slots slots (two words each). */
static size_t gq_smclock_bytes(int slots)
{
	return (size_t)slots * 2 * sizeof(uint64_t);
}

extern "C" int gq_smclock_init(gq_smclock *c, int slots, int sms)
{
	memset(c, 0, sizeof(*c));
	if (slots < 1 || sms < 1)
		return (int)cudaErrorInvalidValue;
	const size_t bytes = gq_smclock_bytes(slots);
	c->host = (uint64_t *)calloc(1, bytes);
	if (!c->host)
		return (int)cudaErrorMemoryAllocation;
	cudaError_t e = cudaMalloc((void **)&c->dev, bytes);
	if (e != cudaSuccess) {
		c->dev = NULL;
		return (int)e;
	}
	c->slots = slots;
	c->sms = sms;
	return 0;
}

extern "C" int gq_smclock_clear(gq_smclock *c, void *stream)
{
	return (int)cudaMemsetAsync(c->dev, 0, gq_smclock_bytes(c->slots), (cudaStream_t)stream);
}

extern "C" int gq_smclock_stamp(gq_smclock *c, int slot, void *stream)
{
	if (slot < 0 || slot >= c->slots)
		return (int)cudaErrorInvalidValue;
	gq_smclock_kernel<<<c->sms, 32, 0, (cudaStream_t)stream>>>(c->dev + 2 * (size_t)slot);
	return (int)cudaGetLastError();
}

extern "C" int gq_smclock_fetch(gq_smclock *c)
{
	return (int)cudaMemcpy(c->host, c->dev, gq_smclock_bytes(c->slots), cudaMemcpyDeviceToHost);
}

extern "C" double gq_smclock_mhz_of(uint64_t ns_a, uint64_t clock_a, uint64_t ns_b,
                                    uint64_t clock_b)
{
	if (!ns_a || !ns_b || ns_b <= ns_a || clock_b <= clock_a)
		return NAN;
	return 1e3 * (double)(clock_b - clock_a) / (double)(ns_b - ns_a);
}

extern "C" double gq_smclock_mhz(const gq_smclock *c, int a, int b)
{
	if (a < 0 || b < 0 || a >= c->slots || b >= c->slots)
		return NAN;
	return gq_smclock_mhz_of(c->host[2 * a], c->host[2 * a + 1], c->host[2 * b],
	                         c->host[2 * b + 1]);
}

extern "C" void gq_smclock_free(gq_smclock *c)
{
	if (c->dev)
		(void)cudaFree(c->dev);
	free(c->host);
	memset(c, 0, sizeof(*c));
}
