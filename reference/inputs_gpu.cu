/* inputs_gpu.cu: the GPU side of the input generator (inputs.h). Each element is computed alone by
 * the philox.h functions the CPU runs, so the grid shape does not change any bit. */
#include <cuda_runtime.h>

#include "inputs.h"
#include "philox.h"

#define GQ_FILL_THREADS    256
#define GQ_FILL_MAX_BLOCKS 65536

/* out[i] = bf16(value(seed, tensor, first + i)) for i in [0, count), grid-stride, 64-bit indices.
 */
static __global__ void fill_bf16_kernel(uint64_t seed, int tensor, int dist, double scale,
                                        uint64_t first, int64_t count, uint16_t *out)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
		out[i] = gq_hd_double_to_bf16(
		    gq_hd_input_value(seed, tensor, first + (uint64_t)i, dist, scale));
}

extern "C" int gq_inputs_fill_bf16_gpu(uint64_t seed, int tensor, gq_input_spec spec,
                                       uint64_t first, int64_t count, uint16_t *out, void *stream)
{
	if (count <= 0)
		return (int)cudaSuccess;
	int64_t blocks = (count + GQ_FILL_THREADS - 1) / GQ_FILL_THREADS;
	if (blocks > GQ_FILL_MAX_BLOCKS)
		blocks = GQ_FILL_MAX_BLOCKS;
	fill_bf16_kernel<<<(unsigned)blocks, GQ_FILL_THREADS, 0, (cudaStream_t)stream>>>(
	    seed, tensor, (int)spec.dist, spec.scale, first, count, out);
	return (int)cudaGetLastError();
}

/* out[i] = fp32(value(seed, tensor, first + i)), as fill_bf16_kernel. */
static __global__ void fill_fp32_kernel(uint64_t seed, int tensor, int dist, double scale,
                                        uint64_t first, int64_t count, uint32_t *out)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
		out[i] = gq_hd_double_to_fp32_bits(
		    gq_hd_input_value(seed, tensor, first + (uint64_t)i, dist, scale));
}

extern "C" int gq_inputs_fill_fp32_gpu(uint64_t seed, int tensor, gq_input_spec spec,
                                       uint64_t first, int64_t count, uint32_t *out, void *stream)
{
	if (count <= 0)
		return (int)cudaSuccess;
	int64_t blocks = (count + GQ_FILL_THREADS - 1) / GQ_FILL_THREADS;
	if (blocks > GQ_FILL_MAX_BLOCKS)
		blocks = GQ_FILL_MAX_BLOCKS;
	fill_fp32_kernel<<<(unsigned)blocks, GQ_FILL_THREADS, 0, (cudaStream_t)stream>>>(
	    seed, tensor, (int)spec.dist, spec.scale, first, count, out);
	return (int)cudaGetLastError();
}
