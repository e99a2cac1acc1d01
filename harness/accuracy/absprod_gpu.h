/* absprod_gpu.h: |opA(A)|·|opB(B)| in FP64 on the GPU, the data of the error-bound ratio. */
#ifndef GQ_ABSPROD_GPU_H
#define GQ_ABSPROD_GPU_H

#include <stdint.h>

#include "problem.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* a and b are the stored BF16 operands of p in device memory; absprod receives M·N doubles in
 * device memory. Converts both to |FP64| in temporary buffers and calls cublasDgemm. */
gq_status gq_absprod_gpu(const gq_problem *p, const uint16_t *a, const uint16_t *b, double *absprod,
                         void *stream, gq_error *err);

#ifdef __cplusplus
}
#endif
#endif
