/* test_audit.c: the comparison of two FP64 references (reference/audit.c): a planted difference is
 * found at its element with both values, the limit is judged on both sides, an element that
 * cancels to nearly 0 does not trip the measure (where an elementwise relative one would), zero
 * magnitude sums, NaN and Inf, and the message names the point, seed, element and values. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "check.h"
#include "reference.h"

/* A real reference (wgrad 16 x 8, K = 1025) and its bound by OpenBLAS, from BF16 operands. */
static gq_problem problem = {.op = GQ_OP_WGRAD,
                             .d_in = 16,
                             .d_out = 8,
                             .t = 1025,
                             .in_dtype = GQ_DTYPE_BF16,
                             .out_dtype = GQ_DTYPE_FP32};

static void make_reference(double *ref, double *absprod)
{
	gq_gemm g;
	gq_problem_gemm(&problem, &g);
	int64_t na = g.a_rows * g.a_cols, nb = g.b_rows * g.b_cols;
	uint16_t *a = malloc((size_t)na * 2), *b = malloc((size_t)nb * 2);
	srand(7);
	for (int64_t i = 0; i < na; i++)
		a[i] = gq_float_to_bf16((float)((double)rand() / RAND_MAX - 0.5));
	for (int64_t i = 0; i < nb; i++)
		b[i] = gq_float_to_bf16((float)((double)rand() / RAND_MAX - 0.5));
	CHECK(gq_reference_compute(&problem, a, b, ref, absprod) == 0);
	free(a);
	free(b);
}

static void test_planted(void)
{
	enum { N = 16 * 8 };
	double ref[N], absprod[N], other[N];
	make_reference(ref, absprod);
	gq_audit a;
	gq_audit_compare(ref, ref, absprod, N, &a);
	CHECK(a.count == N && a.max_rel_diff == 0 && a.index == 0 && gq_audit_passes(&a));

	/* One element moved by 1e-11 of its magnitude sum: found there, with both values. */
	memcpy(other, ref, sizeof(ref));
	other[37] += 1e-11 * absprod[37];
	gq_audit_compare(ref, other, absprod, N, &a);
	CHECK(a.index == 37 && a.authority == ref[37] && a.audited == other[37]);
	CHECK(a.absprod == absprod[37]);
	CHECK_MSG(fabs(a.max_rel_diff / 1e-11 - 1) < 1e-3, "%g", a.max_rel_diff);
	CHECK(!gq_audit_passes(&a));

	/* Below the limit it passes; the larger of two differences is the one reported. */
	memcpy(other, ref, sizeof(ref));
	other[5] += 1e-13 * absprod[5];
	other[90] -= 5e-13 * absprod[90];
	gq_audit_compare(ref, other, absprod, N, &a);
	CHECK(a.index == 90 && fabs(a.max_rel_diff / 5e-13 - 1) < 1e-2 && gq_audit_passes(&a));
	/* The limit itself passes; just above it does not. */
	a.max_rel_diff = GQ_AUDIT_MAX_REL_DIFF;
	CHECK(gq_audit_passes(&a));
	a.max_rel_diff = nextafter(GQ_AUDIT_MAX_REL_DIFF, 1);
	CHECK(!gq_audit_passes(&a));
}

/* An element whose sum cancels: authority 1e-9 of its magnitude sum, the other reference off by
 * 1e-15 of the sum (a rounding difference). Elementwise relative to |authority| that is 1e-6, a
 * false alarm; in units of |A||B| it is 1e-15, which passes. */
static void test_cancellation(void)
{
	double authority[2] = {1e-7, 3.0}, absprod[2] = {100.0, 4.0};
	double audited[2] = {1e-7 + 1e-13, 3.0};
	gq_audit a;
	gq_audit_compare(authority, audited, absprod, 2, &a);
	CHECK(fabs(audited[0] - authority[0]) / authority[0] > 1e-7);
	CHECK_MSG(a.max_rel_diff < 2e-15 && gq_audit_passes(&a), "%g", a.max_rel_diff);
}

/* Zero magnitude sums: 0/0 counts as 0, a difference there as +Inf. Non-finite values: NaN at
 * the first one, which fails and stops the scan. */
static void test_edges(void)
{
	double authority[4] = {0, 1, 2, 3}, absprod[4] = {0, 1, 1, 1};
	double audited[4] = {0, 1, 2, 3};
	gq_audit a;
	gq_audit_compare(authority, audited, absprod, 4, &a);
	CHECK(a.max_rel_diff == 0 && gq_audit_passes(&a));
	audited[0] = 1e-300;
	gq_audit_compare(authority, audited, absprod, 4, &a);
	CHECK(isinf(a.max_rel_diff) && a.index == 0 && !gq_audit_passes(&a));
	audited[0] = 0;
	audited[2] = NAN;
	audited[3] = 1e300;
	gq_audit_compare(authority, audited, absprod, 4, &a);
	CHECK(isnan(a.max_rel_diff) && a.index == 2 && !gq_audit_passes(&a));
	audited[2] = 2;
	audited[1] = INFINITY;
	gq_audit_compare(authority, audited, absprod, 4, &a);
	CHECK(isnan(a.max_rel_diff) && a.index == 1 && !gq_audit_passes(&a));
	absprod[1] = NAN;
	audited[1] = 1;
	gq_audit_compare(authority, audited, absprod, 4, &a);
	CHECK(isnan(a.max_rel_diff) && a.index == 1);
	gq_audit_compare(authority, audited, absprod, 0, &a);
	CHECK(a.count == 0 && a.index == -1 && a.max_rel_diff == 0);
}

static void test_describe(void)
{
	/* wgrad 16 x 8: M = d_out = 8, N = d_in = 16, so element 37 is row 2, col 5. */
	gq_audit a = {.count = 128,
	              .max_rel_diff = 2.5e-11,
	              .index = 37,
	              .authority = 1.25,
	              .audited = 1.2500000001,
	              .absprod = 4.0};
	char line[600];
	gq_audit_describe(&a, &problem, 3, "gpu", line, sizeof(line));
	const char *want[] = {"the gpu reference differs from OpenBLAS's at seed 3",
	                      "element 37 (row 2, col 5)",
	                      "1.2500000001 vs 1.25 (OpenBLAS)",
	                      "2.5e-11·(|A||B|)",
	                      "> 1e-12·(|A||B|)",
	                      "wgrad 16x8 T=1025 bf16->fp32"};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK_MSG(strstr(line, want[i]) != NULL, "\"%s\" lacks \"%s\"", line, want[i]);
	a.max_rel_diff = NAN;
	a.audited = NAN;
	gq_audit_describe(&a, &problem, 3, "gpu", line, sizeof(line));
	CHECK_MSG(strstr(line, "not finite") != NULL, "%s", line);
}

int main(void)
{
	test_planted();
	test_cancellation();
	test_edges();
	test_describe();
	return gq_check_exit("test_audit");
}
