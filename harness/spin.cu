/* spin.cu: the spin kernel (see spin.h). */
#include "spin.h"

#include <cuda_runtime.h>

static __device__ __forceinline__ uint64_t global_ns()
{
	uint64_t t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* Spin until ns nanoseconds of %globaltimer have passed since the first read. */
static __global__ void gq_spin_kernel(int64_t ns)
{
	const uint64_t start = global_ns();
	if (ns <= 0)
		return;
	while (global_ns() - start < (uint64_t)ns) {
	}
}

extern "C" int gq_spin_launch(int64_t ns, void *stream)
{
	gq_spin_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(ns);
	return (int)cudaGetLastError();
}
