/* widen.h: BF16 → FP32 on the GPU, for the library programs of an FP32 × BF16 GEMM (the router
 * backward with an FP32 g, programs_cublas.h): the BF16 operand is widened, exactly, into an FP32
 * copy, then an FP32 GEMM runs, as a user writes `g @ W.float()`.
 */
#ifndef GQ_WIDEN_H
#define GQ_WIDEN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dst[i] = src[i] (BF16 bits) as FP32, i < count, on stream (a cudaStream_t). Returns 0 or the
 * launch's cudaError_t (cudaGetLastError after the launch). */
int gq_widen_bf16_gpu(const uint16_t *src, int64_t count, float *dst, void *stream);

#ifdef __cplusplus
}
#endif
#endif
