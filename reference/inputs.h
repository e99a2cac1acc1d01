/* inputs.h: the inputs of a point, a pure function of (seed, tensor, element index).
 *
 * Philox4x32-10 (Salmon et al., SC'11) keyed by the seed, with the counter
 * (element index low, element index high, tensor id, 0) gives four 32-bit words per element.
 * They become a uniform or a normal FP64 value with IEEE-exact operations only (+, -, ·, /, sqrt,
 * and polynomial log and cos built from them), so the CPU (gq_inputs_fill_bf16) and the GPU
 * (gq_inputs_fill_bf16_gpu, in inputs_gpu.cu) produce the same bits. The value is scaled and
 * rounded to BF16 round-to-nearest-even, or, for an FP32 tensor (the FP32 gradient g of the router
 * backward), to FP32 round-to-nearest-even: the same FP64 value, one rounding, done with integer
 * operations on both sides (philox.h), so CPU and GPU agree bit for bit there too.
 */
#ifndef GQ_INPUTS_H
#define GQ_INPUTS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gq_dist {
	GQ_DIST_NORMAL = 0,  /* N(0, scale²) */
	GQ_DIST_UNIFORM,     /* U[-scale, scale) */
	GQ_DIST_COUNT
} gq_dist;

typedef struct gq_input_spec {
	gq_dist dist;
	double scale;
} gq_input_spec;

const char *gq_dist_name(gq_dist d);   /* "normal", "uniform" */
int gq_dist_parse(const char *name);   /* -1 when unknown */

/* One element's value before rounding, in FP64: the function both sides share. */
double gq_input_value(uint64_t seed, int tensor, uint64_t index, gq_input_spec spec);

/* Fill out[0..count) with elements first..first+count of the tensor, as BF16 bits.
 * Runs on the CPU, multithreaded for large counts. */
void gq_inputs_fill_bf16(uint64_t seed, int tensor, gq_input_spec spec, uint64_t first,
                         int64_t count, uint16_t *out);

/* The same on the GPU: out is device memory; stream is a cudaStream_t (NULL: the default stream).
 * Returns 0, or a CUDA error code (cudaError_t) after a failed launch. */
int gq_inputs_fill_bf16_gpu(uint64_t seed, int tensor, gq_input_spec spec, uint64_t first,
                            int64_t count, uint16_t *out, void *stream);

/* The same for an FP32 tensor: out[i] receives the FP32 bits of element first + i. */
void gq_inputs_fill_fp32(uint64_t seed, int tensor, gq_input_spec spec, uint64_t first,
                         int64_t count, uint32_t *out);
int gq_inputs_fill_fp32_gpu(uint64_t seed, int tensor, gq_input_spec spec, uint64_t first,
                            int64_t count, uint32_t *out, void *stream);

/* Fill a tensor of dtype (0 bf16, 1 fp32: gq_dtype) on the CPU or, with gpu = 1, on the GPU
 * (then a cudaError_t is returned, else 0); out holds count elements of that dtype. */
int gq_inputs_fill(int gpu, uint64_t seed, int tensor, gq_input_spec spec, int dtype,
                   uint64_t first, int64_t count, void *out, void *stream);

#ifdef __cplusplus
}
#endif
#endif
