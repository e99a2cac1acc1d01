/* audit.c: the comparison of two FP64 references (audit.h). */
#include "audit.h"

#include <math.h>
#include <stdio.h>

/* d_ij = |audited − authority| / absprod with 0/0 = 0 and x/0 = +Inf for x > 0; NaN when any of
 * the three values is not finite. The first NaN stops the scan: it is the element to report. */
void gq_audit_compare(const double *authority, const double *audited, const double *absprod,
                      int64_t count, gq_audit *a)
{
	a->count = count;
	a->max_rel_diff = 0;
	a->index = count > 0 ? 0 : -1;
	for (int64_t i = 0; i < count; i++) {
		double diff = fabs(audited[i] - authority[i]);
		double d;
		if (!isfinite(authority[i]) || !isfinite(audited[i]) || !isfinite(absprod[i]))
			d = NAN;
		else if (diff == 0)
			d = 0;
		else
			d = absprod[i] > 0 ? diff / absprod[i] : INFINITY;
		if (isnan(d) || d > a->max_rel_diff) {
			a->max_rel_diff = d;
			a->index = i;
		}
		if (isnan(d))
			break;
	}
	if (a->index >= 0) {
		a->authority = authority[a->index];
		a->audited = audited[a->index];
		a->absprod = absprod[a->index];
	}
}

int gq_audit_passes(const gq_audit *a)
{
	return a->max_rel_diff <= GQ_AUDIT_MAX_REL_DIFF;
}

void gq_audit_describe(const gq_audit *a, const gq_problem *p, uint64_t seed, const char *kind,
                       char *buf, int size)
{
	gq_gemm g;
	gq_problem_gemm(p, &g);
	char what[160];
	gq_problem_describe(p, what, sizeof(what));
	/* row and column of the stored output (rows of ldc elements: for the proj ops a token, or a
	 * head's weight row) */
	int64_t row = a->index >= 0 && g.ldc > 0 ? a->index / g.ldc : -1;
	int64_t col = a->index >= 0 && g.ldc > 0 ? a->index % g.ldc : -1;
	char how[160];
	if (isnan(a->max_rel_diff))
		snprintf(how, sizeof(how), "a value that is not finite (|A||B| = %g)", a->absprod);
	else
		snprintf(how, sizeof(how), "|difference| = %.3g·(|A||B|) = %.3g > %g·(|A||B|)",
		         a->max_rel_diff, fabs(a->audited - a->authority), GQ_AUDIT_MAX_REL_DIFF);
	snprintf(buf, (size_t)size,
	         "the %s reference differs from OpenBLAS's at seed %llu, element %lld (row %lld, "
	         "col %lld): %.17g vs %.17g (OpenBLAS), %s: %s",
	         kind, (unsigned long long)seed, (long long)a->index, (long long)row,
	         (long long)col, a->audited, a->authority, how, what);
}
