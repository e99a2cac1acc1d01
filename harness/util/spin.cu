/* spin.cu: the spin kernel (see spin.h). */
#include "spin.h"

#include <cuda_runtime.h>

static __device__ __forceinline__ uint64_t global_ns()
{
	uint64_t t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* Read %globaltimer first, then spin until it reads ≥ start + ns; write the last reading minus
 * the first to *elapsed when given: the kernel's own view of its duration. */
static __global__ void gq_spin_kernel(int64_t ns, int64_t *elapsed)
{
	const uint64_t start = global_ns();
	uint64_t now = start;
	while (ns > 0 && now - start < (uint64_t)ns)
		now = global_ns();
	if (elapsed)
		*elapsed = (int64_t)(now - start);
}

extern "C" int gq_spin_launch_timed(int64_t ns, int64_t *elapsed_ns, void *stream)
{
	gq_spin_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(ns, elapsed_ns);
	return (int)cudaGetLastError();
}

extern "C" int gq_spin_launch(int64_t ns, void *stream)
{
	return gq_spin_launch_timed(ns, NULL, stream);
}
