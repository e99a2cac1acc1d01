/* widen.cu: BF16 → FP32 on the GPU (widen.h). */
#include <cuda_runtime.h>

#include "widen.h"

#define GQ_WIDEN_THREADS    256
#define GQ_WIDEN_MAX_BLOCKS 65536

/* The BF16 bits are the high half of the FP32 word: exact. Grid-stride, 64-bit indices. */
static __global__ void widen_kernel(const uint16_t *src, int64_t count, float *dst)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
		dst[i] = __uint_as_float((uint32_t)src[i] << 16);
}

extern "C" int gq_widen_bf16_gpu(const uint16_t *src, int64_t count, float *dst, void *stream)
{
	if (count <= 0)
		return (int)cudaSuccess;
	int64_t blocks = (count + GQ_WIDEN_THREADS - 1) / GQ_WIDEN_THREADS;
	if (blocks > GQ_WIDEN_MAX_BLOCKS)
		blocks = GQ_WIDEN_MAX_BLOCKS;
	widen_kernel<<<(unsigned)blocks, GQ_WIDEN_THREADS, 0, (cudaStream_t)stream>>>(src, count,
	                                                                              dst);
	return (int)cudaGetLastError();
}
