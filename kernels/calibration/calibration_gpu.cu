/* calibration_gpu.cu: the device halves of cal:wrong and cal:nan (see calibration.h). */
#include <cuda_runtime.h>
#include <stdint.h>

#include "calibration.h"

#define PLANT_THREADS 1024

__device__ static float bf16_to_float(uint16_t bits)
{
	return __uint_as_float((uint32_t)bits << 16);
}

/* Round to nearest even; NaN stays a (quiet) NaN. */
__device__ static uint16_t float_to_bf16(float v)
{
	uint32_t u = __float_as_uint(v);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40u);
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

__device__ static float load(const void *out, int64_t i, int fp32)
{
	return fp32 ? ((const float *)out)[i] : bf16_to_float(((const uint16_t *)out)[i]);
}

/* One block: m = max_i |out[i]| by a strided scan and a shared-memory tree, then thread 0 sets
 * out[idx] += fraction · m (1 when m is 0), in the output's dtype. */
__global__ static void plant_wrong_kernel(void *out, int64_t count, int64_t idx, int fp32,
                                          float fraction)
{
	__shared__ float part[PLANT_THREADS];
	float m = 0.0f;
	for (int64_t i = threadIdx.x; i < count; i += blockDim.x)
		m = fmaxf(m, fabsf(load(out, i, fp32)));
	part[threadIdx.x] = m;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s /= 2) {
		if ((int)threadIdx.x < s)
			part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + s]);
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		float delta = part[0] > 0.0f ? fraction * part[0] : 1.0f;
		float v = load(out, idx, fp32) + delta;
		if (fp32)
			((float *)out)[idx] = v;
		else
			((uint16_t *)out)[idx] = float_to_bf16(v);
	}
}

extern "C" int gq_calibration_plant_wrong(void *out, int64_t count, int64_t idx, int out_dtype,
                                          double fraction, void *stream)
{
	plant_wrong_kernel<<<1, PLANT_THREADS, 0, (cudaStream_t)stream>>>(
	    out, count, idx, out_dtype == 1, (float)fraction);
	return (int)cudaGetLastError();
}

/* One thread: when poison is set, every byte of out[idx] (elem_bytes of them) becomes 0xFF. */
__global__ static void poison_kernel(unsigned char *out, int64_t idx, int elem_bytes, int poison)
{
	if (poison)
		for (int b = 0; b < elem_bytes; b++)
			out[idx * elem_bytes + b] = 0xFFu;
}

extern "C" int gq_calibration_poison(void *out, int64_t idx, int elem_bytes, int poison,
                                     void *stream)
{
	poison_kernel<<<1, 1, 0, (cudaStream_t)stream>>>((unsigned char *)out, idx, elem_bytes,
	                                                 poison);
	return (int)cudaGetLastError();
}
