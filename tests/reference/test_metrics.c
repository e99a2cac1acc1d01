/* test_metrics.c: the error figures (reference/metrics.c): hand-worked cases, the bound ratio and
 * its zero guards, ties across chunks, merge, and a large multithreaded run against a plain
 * single loop. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "metrics.h"
#include "reference.h"

static const gq_tolerance tol2 = {1e-2, 1e-2};

static void test_roundoff(void)
{
	CHECK(gq_unit_roundoff(GQ_DTYPE_FP32) == ldexp(1, -24));
	CHECK(gq_unit_roundoff(GQ_DTYPE_BF16) == ldexp(1, -8));
	double u = ldexp(1, -24);
	CHECK(gq_gamma_k(0) == 0);
	CHECK(fabs(gq_gamma_k(1) - u / (1 - u)) <= 1e-30);
	CHECK(fabs(gq_gamma_k(4096) / (4096 * u / (1 - 4096 * u)) - 1) < 1e-15);
	CHECK(gq_gamma_k(4096) > 4096 * u); /* γ_K exceeds K·u */
	CHECK(isinf(gq_gamma_k(1 << 24)) && isinf(gq_gamma_k((int64_t)1 << 40)));
	CHECK(isfinite(gq_gamma_k((1 << 24) - 1)));
}

/* ref {1, 2, 3, 4, -5}, out {1, 2.5, 3.02, NaN, -5.04} in FP32, worked by hand:
 * errors 0, .5, .02, –, .04 (to FP32 rounding of 3.02 and -5.04); tolerance 1e-2 + 1e-2·|r|:
 * .02, .03, .04, –, .06, so index 1 (0.5 > .03) and 3 (NaN) violate; 2 (≈.02 ≤ .04) and 4 do not.
 */
static void test_hand_case(void)
{
	double ref[5] = {1, 2, 3, 4, -5};
	float out[5] = {1, 2.5f, 3.02f, NAN, -5.04f};
	gq_metrics m;
	gq_metrics_compute(out, GQ_DTYPE_FP32, ref, NULL, 5, 64, tol2, &m);
	double e2 = fabs((double)3.02f - 3), e4 = fabs((double)-5.04f + 5);
	CHECK(m.count == 5);
	CHECK(m.nonfinite == 1 && m.first_nonfinite == 3);
	CHECK(m.violations == 2 && m.first_violation == 1);
	CHECK(m.sum_sq_ref == 1 + 4 + 9 + 16 + 25);
	CHECK(fabs(m.sum_sq_err - (0.25 + e2 * e2 + e4 * e4)) < 1e-15);
	CHECK(m.max_abs_err == 0.5 && m.max_abs_err_index == 1);
	CHECK(m.max_abs_ref == 5);
	CHECK(m.max_bound_ratio == 0);
	CHECK(fabs(m.rel_fro - sqrt((0.25 + e2 * e2 + e4 * e4) / 55)) < 1e-15);
	CHECK(m.max_abs_rel == 0.1);

	/* +Inf and -Inf are nonfinite and violations too; no NaN anywhere: nothing */
	float inf_out[3] = {1, INFINITY, -INFINITY};
	gq_metrics_compute(inf_out, GQ_DTYPE_FP32, ref, NULL, 3, 64, tol2, &m);
	CHECK(m.nonfinite == 2 && m.first_nonfinite == 1 && m.violations == 2);
	CHECK(isfinite(m.sum_sq_err) && isfinite(m.rel_fro));
	float exact[5] = {1, 2, 3, 4, -5};
	gq_metrics_compute(exact, GQ_DTYPE_FP32, ref, NULL, 5, 64, tol2, &m);
	CHECK(m.nonfinite == 0 && m.violations == 0 && m.first_violation == -1);
	CHECK(m.first_nonfinite == -1 && m.rel_fro == 0 && m.max_abs_rel == 0);
	CHECK(m.max_abs_err == 0 && m.max_abs_err_index == 0); /* lowest index of the maximum */
}

/* BF16 outputs: the value is the BF16 value; a violation exactly at the tolerance does not
 * count (|out − ref| ≤ atol + rtol·|ref| passes). */
static void test_bf16_outputs(void)
{
	double ref[4] = {1.0, 1.0, 256.0, 0.0};
	uint16_t out[4] = {gq_float_to_bf16(1.0f + 0x1p-7f), gq_float_to_bf16(1.0f + 0x1p-5f),
	                   gq_float_to_bf16(258.0f), gq_float_to_bf16(NAN)};
	gq_tolerance tol = {0x1p-7, 0.0}; /* element 0 sits exactly on it */
	gq_metrics m;
	gq_metrics_compute(out, GQ_DTYPE_BF16, ref, NULL, 4, 8, tol, &m);
	CHECK(m.nonfinite == 1 && m.first_nonfinite == 3);
	CHECK(m.violations == 3 && m.first_violation == 1);
	CHECK(m.max_abs_err == 2.0 && m.max_abs_err_index == 2);
	CHECK(m.sum_sq_err == 0x1p-14 + 0x1p-10 + 4.0);
}

/* Bound ratio e/(γ_K·absprod + u_out·|ref|), with 0/0 → 0 and x/0 → +Inf. */
static void test_bound_ratio(void)
{
	double ref[3] = {2.0, 0.0, 0.0}, absprod[3] = {3.0, 0.0, 0.0};
	float out[3] = {2.0f + 0x1p-20f, 0.0f, 0.0f};
	int64_t k = 1;
	double want = 0x1p-20 / (gq_gamma_k(k) * 3.0 + 0x1p-24 * 2.0);
	gq_metrics m;
	gq_metrics_compute(out, GQ_DTYPE_FP32, ref, absprod, 3, k, tol2, &m);
	CHECK(m.max_bound_ratio == want);
	CHECK(m.max_bound_ratio > 1); /* 2^-20 exceeds the bound of a K = 1 product */
	gq_metrics_compute(out, GQ_DTYPE_FP32, ref, NULL, 3, k, tol2, &m);
	CHECK(m.max_bound_ratio == 0);
	out[2] = 1e-30f; /* an error where the bound is 0 */
	gq_metrics_compute(out, GQ_DTYPE_FP32, ref, absprod, 3, k, tol2, &m);
	CHECK(isinf(m.max_bound_ratio) && m.max_bound_ratio > 0);
	/* with γ_K = +Inf (K·u ≥ 1) and absprod 0 the bound is u_out·|ref|, not NaN */
	float out2[1] = {2.0f + 0x1p-20f};
	double ap0[1] = {0.0};
	gq_metrics_compute(out2, GQ_DTYPE_FP32, ref, ap0, 1, (int64_t)1 << 30, tol2, &m);
	CHECK(m.max_bound_ratio == 0x1p-20 / (0x1p-24 * 2.0));
}

/* Zero reference: 0 error gives rel_fro 0, any error +Inf. */
static void test_zero_reference(void)
{
	double ref[2] = {0, 0};
	float zero[2] = {0, 0}, one[2] = {0, 1};
	gq_metrics m;
	gq_metrics_compute(zero, GQ_DTYPE_FP32, ref, NULL, 2, 1, tol2, &m);
	CHECK(m.rel_fro == 0 && m.max_abs_rel == 0);
	gq_metrics_compute(one, GQ_DTYPE_FP32, ref, NULL, 2, 1, tol2, &m);
	CHECK(isinf(m.rel_fro) && isinf(m.max_abs_rel));
	gq_metrics_compute(one, GQ_DTYPE_FP32, ref, NULL, 0, 1, tol2, &m);
	CHECK(m.count == 0 && m.first_violation == -1 && m.max_abs_err_index == -1);
}

/* Figures by one plain loop in index order: the specification restated. */
static void plain_metrics(const float *out, const double *ref, const double *absprod, int64_t n,
                          int64_t k, gq_tolerance tol, gq_metrics *m)
{
	double gamma = gq_gamma_k(k), u = ldexp(1, -24);
	memset(m, 0, sizeof(*m));
	m->count = n;
	m->first_nonfinite = m->first_violation = m->max_abs_err_index = -1;
	for (int64_t i = 0; i < n; i++) {
		double o = out[i], r = ref[i];
		m->sum_sq_ref += r * r;
		m->max_abs_ref = fmax(m->max_abs_ref, fabs(r));
		if (isnan(o) || isinf(o)) {
			m->first_nonfinite = m->nonfinite++ ? m->first_nonfinite : i;
			m->first_violation = m->violations++ ? m->first_violation : i;
			continue;
		}
		double e = fabs(o - r);
		if (e > tol.atol + tol.rtol * fabs(r))
			m->first_violation = m->violations++ ? m->first_violation : i;
		m->sum_sq_err += e * e;
		if (m->max_abs_err_index < 0 || e > m->max_abs_err)
			m->max_abs_err = e, m->max_abs_err_index = i;
		double d = gamma * absprod[i] + u * fabs(r);
		m->max_bound_ratio = fmax(m->max_bound_ratio, e / d);
	}
}

/* 3 chunks and a ragged end, with planted errors: equal largest errors at indices 70000
 * (chunk 1) and 5 (chunk 0) and 200000 (chunk 3): the index is 5; planted NaNs; everything but
 * the sums equal to the plain loop, the sums within 1e-12; two runs bitwise equal; merging the
 * figures of two halves gives the figures of the whole. */
static void test_large_and_merge(void)
{
	const int64_t n = 3 * 65536 + 12345;
	float *out = malloc(sizeof(float) * n);
	double *ref = malloc(sizeof(double) * n), *ap = malloc(sizeof(double) * n);
	srand(11);
	for (int64_t i = 0; i < n; i++) {
		ref[i] = (rand() / (double)RAND_MAX - 0.5) * 4;
		ap[i] = fabs(ref[i]) + 1;
		out[i] = (float)ref[i];
	}
	int64_t big[3] = {70000, 5, 200000};
	for (int j = 0; j < 3; j++)
		out[big[j]] = (float)(ref[big[j]] = 1.0) + 0.25f;
	out[150001] = NAN;
	out[99999] = (float)ref[99999] + 0.1f;
	out[150000] = (float)ref[150000] - 0.05f;
	gq_metrics m, m2, want;
	gq_metrics_compute(out, GQ_DTYPE_FP32, ref, ap, n, 512, tol2, &m);
	plain_metrics(out, ref, ap, n, 512, tol2, &want);
	gq_metrics_finish(&want);
	CHECK(m.count == n);
	CHECK(m.nonfinite == 1 && m.first_nonfinite == 150001);
	CHECK(m.violations == want.violations && m.first_violation == 5);
	CHECK(m.violations == 6); /* three big, 99999, 150000, the NaN */
	CHECK(m.max_abs_err == 0.25 && m.max_abs_err_index == 5);
	CHECK(m.max_abs_ref == want.max_abs_ref);
	CHECK(m.max_bound_ratio == want.max_bound_ratio);
	CHECK(fabs(m.sum_sq_err / want.sum_sq_err - 1) < 1e-12);
	CHECK(fabs(m.sum_sq_ref / want.sum_sq_ref - 1) < 1e-12);
	CHECK(fabs(m.rel_fro / want.rel_fro - 1) < 1e-12);
	gq_metrics_compute(out, GQ_DTYPE_FP32, ref, ap, n, 512, tol2, &m2);
	CHECK(memcmp(&m, &m2, sizeof(m)) == 0);

	/* two halves, the second's indices made absolute, merged */
	int64_t half = 100000;
	gq_metrics a, b;
	gq_metrics_compute(out, GQ_DTYPE_FP32, ref, ap, half, 512, tol2, &a);
	gq_metrics_compute(out + half, GQ_DTYPE_FP32, ref + half, ap + half, n - half, 512, tol2,
	                   &b);
	b.first_nonfinite += half;
	b.first_violation += half;
	b.max_abs_err_index += half;
	gq_metrics_merge(&a, &b);
	gq_metrics_finish(&a);
	CHECK(a.count == n && a.nonfinite == 1 && a.first_nonfinite == 150001);
	CHECK(a.violations == m.violations && a.first_violation == 5);
	CHECK(a.max_abs_err == 0.25 && a.max_abs_err_index == 5);
	CHECK(a.max_bound_ratio == m.max_bound_ratio && a.max_abs_ref == m.max_abs_ref);
	CHECK(fabs(a.rel_fro / m.rel_fro - 1) < 1e-12);
	/* merging into an empty record that has no maximum takes b's */
	gq_metrics e;
	gq_metrics_compute(out, GQ_DTYPE_FP32, ref, ap, 0, 512, tol2, &e);
	gq_metrics_merge(&e, &m);
	CHECK(e.max_abs_err_index == 5 && e.first_violation == 5 && e.count == n);
	free(out);
	free(ref);
	free(ap);
}

int main(void)
{
	test_roundoff();
	test_hand_case();
	test_bf16_outputs();
	test_bound_ratio();
	test_zero_reference();
	test_large_and_merge();
	return gq_check_exit("test_metrics");
}
