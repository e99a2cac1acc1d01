/* metrics.h: how far one output is from the FP64 reference, and the budgets that judge it.
 *
 * The CPU functions here are the specification; metrics_gpu.cu computes the same figures where the
 * output lives and is tested against them (counts, maxima and indices equal; sums within 1e-12
 * relative, since the order of the additions differs).
 */
#ifndef GQ_METRICS_H
#define GQ_METRICS_H

#include <stdint.h>

#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Figures of one output against the reference. Errors accumulate in double. */
typedef struct gq_metrics {
	int64_t count;        /* elements compared, M·N */
	int64_t nonfinite;    /* outputs that are NaN or ±Inf (an unwritten element reads NaN) */
	int64_t first_nonfinite; /* its flat index, or -1 */
	int64_t violations;   /* elements with |out − ref| > atol + rtol·|ref| (NaN counts) */
	int64_t first_violation; /* its flat index, or -1 */
	double sum_sq_err;    /* Σ (out − ref)² over finite outputs */
	double sum_sq_ref;    /* Σ ref² */
	double max_abs_err;   /* max |out − ref| over finite outputs */
	int64_t max_abs_err_index;
	double max_abs_ref;   /* max |ref| */
	double max_bound_ratio; /* max |out − ref| / (γ_K·(|A||B|)_ij + u_out·|ref_ij|); 0 without absprod */
	double rel_fro;       /* sqrt(sum_sq_err / sum_sq_ref); 0 when sum_sq_ref is 0 and the error too */
	double max_abs_rel;   /* max_abs_err / max_abs_ref */
} gq_metrics;

/* The tolerance pair the violation count uses. */
typedef struct gq_tolerance {
	double atol, rtol;
} gq_tolerance;

/* Unit roundoff u of FP32 accumulation and of the output dtype: 2^-24 for FP32, 2^-8 for BF16. */
double gq_unit_roundoff(gq_dtype d);

/* γ_K = K·u/(1 − K·u) with u the FP32 unit roundoff; +Inf when K·u ≥ 1. */
double gq_gamma_k(int64_t k);

/* Compute m for out (BF16 bits or FP32 values, by out_dtype) against ref, both count long.
 * absprod may be NULL (then max_bound_ratio is 0); k is the reduction length for γ_K. */
void gq_metrics_compute(const void *out, gq_dtype out_dtype, const double *ref, const double *absprod,
                        int64_t count, int64_t k, gq_tolerance tol, gq_metrics *m);

/* Merge b into a (a covers elements before b's; indices of b are already absolute). */
void gq_metrics_merge(gq_metrics *a, const gq_metrics *b);

/* Derive rel_fro and max_abs_rel from the sums and maxima. */
void gq_metrics_finish(gq_metrics *m);

/* The GPU version: out, ref and absprod (may be NULL) are device pointers; the result lands in m on
 * the host. Deterministic (a fixed reduction tree). Returns 0 or a CUDA error code. */
int gq_metrics_compute_gpu(const void *out, gq_dtype out_dtype, const double *ref,
                           const double *absprod, int64_t count, int64_t k, gq_tolerance tol,
                           gq_metrics *m, void *stream);

/* Count elements whose bits differ between two outputs of count elements (device pointers).
 * Returns 0 or a CUDA error code; the count lands in *differing. */
int gq_outputs_compare_gpu(const void *a, const void *b, int64_t count, gq_dtype dtype,
                           int64_t *differing, void *stream);

/* A budget: the rules an output must meet. A limit that is negative is not checked. */
typedef struct gq_budget {
	char name[64];          /* preset name, or "custom" / "custom:<base>" */
	gq_tolerance tol;       /* for the violation count */
	int64_t max_violations; /* < 0: violations are data only */
	double max_rel_fro;     /* rel_fro ≤ this (rel-RMS) */
	double max_abs_rel;     /* max_abs_err ≤ this · max|ref| */
} gq_budget;

/* The presets of DESIGN.md:
 *   k1_bf16:     atol = rtol = 1e-2, zero violations, rel_fro ≤ 3e-3
 *   k1_fp32:     rel_fro ≤ 5e-5, max_abs ≤ 1e-3·max|ref| (violations at atol = rtol = 1e-2: data)
 *   router_fp32: rel_fro ≤ 5e-5 (logits and router dgrad), ≤ 2e-6 for router_wgrad
 *   miles_bf16:  rel_fro ≤ 3e-3, no element rule (violations at atol = rtol = 1e-2: data)
 * Returns 0, or -1 for an unknown name. */
int gq_budget_preset(const char *name, gq_op op, gq_budget *b);

/* The preset names, NULL-terminated, for error messages. */
extern const char *const gq_budget_preset_names[];

/* Judge m against b. Returns 1 when it passes. When it fails and reason is not NULL, reason gets
 * the first broken rule with its figure: "nonfinite: 3 NaN/Inf outputs, first at 17",
 * "violations: 12 > 0 (first at 1033)", "rel_fro: 4.1e-3 > 3e-3", "max_abs: 2.0e-3·max|ref| > 1e-3".
 * NaN or Inf fails first, before any norm. */
int gq_budget_judge(const gq_budget *b, const gq_metrics *m, char *reason, int reason_size);

#ifdef __cplusplus
}
#endif
#endif
