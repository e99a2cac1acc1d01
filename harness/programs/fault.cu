/* fault.cu: a kernel that faults on purpose (see fault.h). */
#include "fault.h"

#include <stdint.h>

#include <cuda_runtime.h>

/* Store through an address no allocation can own: the first page of the address space. */
static __global__ void gq_fault_kernel(int *where)
{
	*where = 1;
}

extern "C" int gq_fault_launch(void *stream)
{
	gq_fault_kernel<<<1, 1, 0, (cudaStream_t)stream>>>((int *)(uintptr_t)0x10);
	return (int)cudaGetLastError();
}
