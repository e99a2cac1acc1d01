/* reference.h: the FP64 reference of a point, and the data for the rounding-error bound.
 *
 * BF16 → FP64 is exact (a BF16 value is an FP32 value with 16 zero low bits, and FP64 holds every
 * FP32 value). The reference is out = opA(A)·opB(B) in FP64 by OpenBLAS cblas_dgemm, row-major,
 * with the layouts of problem.h. The bound operand is |opA(A)|·|opB(B)|, the matrix the rigorous
 * error bound γ_K·(|A||B|)_ij is made from.
 */
#ifndef GQ_REFERENCE_H
#define GQ_REFERENCE_H

#include <stdint.h>

#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a point's FP64 reference comes from: OpenBLAS on the host (the authority; this file), cuBLAS
 * DGEMM on the GPU, or the calibration reference that moves one element of OpenBLAS's
 * (harness/accuracy/provider.h). Protocols choose openblas or gpu (accuracy.reference). */
typedef enum gq_reference_kind {
	GQ_REFERENCE_OPENBLAS = 0,
	GQ_REFERENCE_GPU,
	GQ_REFERENCE_PLANTED,
	GQ_REFERENCE_KIND_COUNT
} gq_reference_kind;

/* "openblas", "gpu", "planted"; the parser returns -1 for an unknown name. */
const char *gq_reference_kind_name(gq_reference_kind k);
int gq_reference_kind_parse(const char *name);

/* BF16 bits → float, exact. */
float gq_bf16_to_float(uint16_t bits);
/* float → BF16 bits, round to nearest even; NaN stays NaN (quiet). */
uint16_t gq_float_to_bf16(float value);
/* double → BF16 bits, round to nearest even of the double value (one rounding, not via float). */
uint16_t gq_double_to_bf16(double value);

/* Convert count BF16 values to FP64 (optionally their absolute values), multithreaded. */
void gq_bf16_to_double(const uint16_t *in, int64_t count, int absolute, double *out);
/* The same for count FP32 values (exact: FP64 holds every FP32 value). */
void gq_fp32_to_double(const float *in, int64_t count, int absolute, double *out);

/* ref = opA(A)·opB(B) in FP64 (batch·M·N elements, per head as problem.h lays out the output); a
 * and b are the stored operands of problem p, BF16 or (an FP32 g) FP32 as gq_problem_gemm says,
 * with their shapes. When absprod is not NULL it receives |opA(A)|·|opB(B)|.
 * Returns 0, or -1 when memory for the FP64 copies could not be had. */
int gq_reference_compute(const gq_problem *p, const void *a, const void *b, double *ref,
                         double *absprod);

/* OpenBLAS's configuration string and thread count, for `gemmq info` and results metadata. */
const char *gq_reference_blas_config(void);
int gq_reference_blas_threads(void);
/* Set OpenBLAS's thread count for every later call (process-wide). */
void gq_reference_blas_set_threads(int threads);

#ifdef __cplusplus
}
#endif
#endif
