/* inputs_gpu.cu: the GPU side of the input generator (inputs.h). Each element is computed alone by
 * the philox.h functions the CPU runs, so the grid shape does not change any bit. */
#include <cuda_runtime.h>

#include "inputs.h"
#include "philox.h"

#define GQ_FILL_THREADS    256
#define GQ_FILL_MAX_BLOCKS 65536

/* out[i] = value(seed, tensor, first + i) rounded to T's format (uint16_t: BF16 bits, uint32_t:
 * FP32 bits) for i in [0, count), grid-stride, 64-bit indices. */
template <typename T>
static __global__ void fill_kernel(uint64_t seed, int tensor, int dist, double scale,
                                   uint64_t first, int64_t count, T *out)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
		const double v = gq_hd_input_value(seed, tensor, first + (uint64_t)i, dist, scale);
		out[i] = sizeof(T) == 2 ? (T)gq_hd_double_to_bf16(v) : (T)gq_hd_double_to_fp32_bits(v);
	}
}

template <typename T>
static int fill(uint64_t seed, int tensor, gq_input_spec spec, uint64_t first, int64_t count,
                T *out, void *stream)
{
	if (count <= 0)
		return (int)cudaSuccess;
	int64_t blocks = (count + GQ_FILL_THREADS - 1) / GQ_FILL_THREADS;
	if (blocks > GQ_FILL_MAX_BLOCKS)
		blocks = GQ_FILL_MAX_BLOCKS;
	fill_kernel<T><<<(unsigned)blocks, GQ_FILL_THREADS, 0, (cudaStream_t)stream>>>(
	    seed, tensor, (int)spec.dist, spec.scale, first, count, out);
	return (int)cudaGetLastError();
}

extern "C" int gq_inputs_fill_bf16_gpu(uint64_t seed, int tensor, gq_input_spec spec,
                                       uint64_t first, int64_t count, uint16_t *out, void *stream)
{
	return fill(seed, tensor, spec, first, count, out, stream);
}

extern "C" int gq_inputs_fill_fp32_gpu(uint64_t seed, int tensor, gq_input_spec spec,
                                       uint64_t first, int64_t count, uint32_t *out, void *stream)
{
	return fill(seed, tensor, spec, first, count, out, stream);
}
