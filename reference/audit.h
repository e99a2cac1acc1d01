/* audit.h: how far a second FP64 reference is from OpenBLAS's, and whether that is allowed.
 *
 * A reference computed another way (cuBLAS DGEMM on the GPU) sums the same products in another
 * order. The products of BF16 values are exact in FP64, so the two differ by the rounding of the
 * sums alone. The figure compared with the limit is
 *
 *     max_rel_diff = max_ij |audited_ij − authority_ij| / (|A|·|B|)_ij      (0/0 counts as 0)
 *
 * the difference of each element in units of its magnitude sum Σ_k |a_ik|·|b_kj| (the bound
 * operand of reference.h and metrics.h), dimensionless. Why this measure:
 *   - Any order of summation in FP64 is within γ_K·(|A||B|)_ij of the exact sum (Higham, Accuracy
 *     and Stability of Numerical Algorithms, §3.1), γ_K = K·u/(1 − K·u), u = 2^-53. Two correct
 *     references are therefore within 2·γ_K in this measure whatever the values; rounding errors
 *     of random signs add like a random walk, to a few sqrt(K)·u (3e-14 at K = 65537). With BF16
 *     inputs most sums do not even round: a product has 16 significant bits, and the partial
 *     sums of normal inputs fit FP64's 53 (OpenBLAS against a sequential loop, K = 65537, 16384
 *     elements: a figure of 0; an FP32 accumulation of the same products: 2.3e-7).
 *   - Relative to |authority_ij| instead, an element whose sum cancels to nearly 0 would show an
 *     arbitrarily large figure between two correct references (in that experiment the smallest
 *     |ref| was 3.6e-5 of the mean, and more elements reach smaller ones); normwise,
 *     max|diff| / max|authority|, a wrong element among small ones would hide behind the largest.
 *   - A wrong reference shows at once: one product missing or counted twice moves its element by
 *     about (|A||B|)_ij / K (1.5e-5 at K = 65537); FP32 or TF32 accumulation, or an operand not
 *     converted exactly, by 1e-8 or more.
 * The limit, GQ_AUDIT_MAX_REL_DIFF = 1e-12, lies 30 times above the random-walk figure at the
 * longest K the protocols use and 10^4 times below the smallest real fault. (2·γ_K passes 1e-12
 * from K ≈ 4500 on, so the limit is a practical bound, not a proof: a correct reference that
 * exceeded it would need rounding errors of one sign all along a long sum.)
 *
 * A value that is NaN or ±Inf in either reference, or a non-finite magnitude sum, makes the figure
 * NaN, which fails; a difference where the magnitude sum is 0 makes it +Inf, which fails.
 */
#ifndef GQ_AUDIT_H
#define GQ_AUDIT_H

#include <stdint.h>

#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GQ_AUDIT_MAX_REL_DIFF 1e-12

typedef struct gq_audit {
	int64_t count;       /* elements compared */
	double max_rel_diff; /* the figure above */
	int64_t index;       /* flat (row-major) index where it was reached: the first non-finite
	                        element when there is one; -1 when count is 0 */
	double authority;    /* the values at index: OpenBLAS's, */
	double audited;      /* the audited reference's, */
	double absprod;      /* and (|A|·|B|) there */
} gq_audit;

/* Compare audited against authority (both count FP64 values, the same layout) in units of
 * absprod, into a. */
void gq_audit_compare(const double *authority, const double *audited, const double *absprod,
                      int64_t count, gq_audit *a);

/* 1 when the audit passes: max_rel_diff ≤ GQ_AUDIT_MAX_REL_DIFF (NaN does not). */
int gq_audit_passes(const gq_audit *a);

/* One line for a failed audit of point p at seed: "the gpu reference differs from OpenBLAS's at
 * seed 0, element 1234 (row 1, col 210): 1.2345678901234567e+01 vs 1.2345678901234000e+01
 * (OpenBLAS), |difference| = 5.7e-12·(|A||B|) = 5.7e-08 > 1e-12·(|A||B|): wgrad 4096x64 T=1025
 * bf16->fp32". kind names the audited reference. */
void gq_audit_describe(const gq_audit *a, const gq_problem *p, uint64_t seed, const char *kind,
                       char *buf, int size);

#ifdef __cplusplus
}
#endif
#endif
