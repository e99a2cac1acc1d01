/* provider.h: where a point's FP64 reference comes from (protocol key accuracy.reference).
 *
 * A reference provider is a struct of function pointers and a context. compute() makes, from the
 * stored operands a and b of a problem (BF16, or an FP32 g: gq_gemm's a_dtype and b_dtype)
 * (problem.h gives their shapes), ref     = opA(A)·opB(B)        in FP64, M·N row-major, and
 *     absprod = |opA(A)|·|opB(B)|    the bound operand of the metrics,
 * either of which may be NULL (not wanted). The operands are exact in FP64, so every provider
 * computes the same sums, in its own order.
 *
 *   openblas  the authority: OpenBLAS cblas_dgemm on the host (reference.h). Host memory.
 *   gpu       cuBLAS cublasDgemm on the device, of FP64 copies of the operands made there
 *             (provider_gpu.cu). Device memory, ordered on the given stream; compute() returns
 *             when the results are there. Also makes the bound operand of every run on a GPU.
 *   planted   calibration only, never in a protocol (`gemmq accuracy --reference
 *             planted:E:X`): OpenBLAS's reference with element E moved by X·(|A||B|)_E, on every
 *             seed, so that the audit can be seen to flag X > 1e-12 and to pass X ≤ 1e-12. Host
 *             memory.
 *
 * With any reference but openblas, the accuracy engine also computes one seed of every point
 * with OpenBLAS and compares the two (audit.h): the audit.
 */
#ifndef GQ_PROVIDER_H
#define GQ_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

#include "problem.h"
#include "reference.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gq_ref_provider {
	const char *name; /* "openblas", "gpu", "planted" */
	int on_device;    /* 1: a, b, ref and absprod are device memory */
	void *ctx;
	gq_status (*compute)(void *ctx, const gq_problem *p, const void *a, const void *b,
	                     double *ref, double *absprod, void *stream, gq_error *err);
	void (*free)(void *ctx); /* may be NULL */
} gq_ref_provider;

/* The reference a run uses: its kind and, for planted, the element and the amount. */
typedef struct gq_reference_spec {
	gq_reference_kind kind;
	int64_t planted_element;
	double planted_amount;
} gq_reference_spec;

/* Parse "openblas", "gpu" or "planted:E:X" (E an element index ≥ 0, X a finite number; the
 * `--reference` option). GQ_ERR_INPUT with the accepted forms otherwise. */
gq_status gq_reference_spec_parse(const char *text, gq_reference_spec *spec, gq_error *err);

/* The providers. Each fills *out; release it with gq_ref_provider_free. */
void gq_ref_provider_openblas(gq_ref_provider *out);
gq_status gq_ref_provider_planted(int64_t element, double amount, gq_ref_provider *out,
                                  gq_error *err);
/* The gpu provider on the current CUDA device: creates a cuBLAS handle (default math, so DGEMM
 * runs in native FP64, never emulated); keeps its FP64 copies of the operands between calls,
 * grown as needed, until freed. */
gq_status gq_ref_provider_gpu(gq_ref_provider *out, gq_error *err);

/* The provider of spec (openblas, gpu or planted). */
gq_status gq_ref_provider_init(const gq_reference_spec *spec, gq_ref_provider *out, gq_error *err);

/* Release p's context (NULL-safe; p is zeroed). */
void gq_ref_provider_free(gq_ref_provider *p);

#ifdef __cplusplus
}
#endif
#endif
