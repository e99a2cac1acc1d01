/* budget.c: the accuracy budgets of DESIGN.md and the judgement of one output's figures
 * (metrics.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

const char *const gq_budget_preset_names[] = {"k1_bf16", "k1_fp32", "router_fp32", "miles_bf16",
                                              NULL};

/* The presets; every one counts violations at atol = rtol = 1e-2, only k1_bf16 limits them:
 *   k1_bf16      violations ≤ 0, rel_fro ≤ 3e-3
 *   k1_fp32      rel_fro ≤ 5e-5, max_abs_err ≤ 1e-3·max|ref|
 *   router_fp32  rel_fro ≤ 5e-5, or ≤ 2e-6 for router_wgrad (the router's FP32 weight gradient)
 *   miles_bf16   rel_fro ≤ 3e-3 and no element rule (the miles dense layer's BF16 outputs and
 *                gradients: its acceptance is rel-RMS alone) */
int gq_budget_preset(const char *name, gq_op op, gq_budget *b)
{
	gq_budget r = {
	    .tol = {1e-2, 1e-2}, .max_violations = -1, .max_rel_fro = -1, .max_abs_rel = -1};
	if (!name)
		return -1;
	if (strcmp(name, "k1_bf16") == 0) {
		r.max_violations = 0;
		r.max_rel_fro = 3e-3;
	} else if (strcmp(name, "k1_fp32") == 0) {
		r.max_rel_fro = 5e-5;
		r.max_abs_rel = 1e-3;
	} else if (strcmp(name, "router_fp32") == 0) {
		r.max_rel_fro = op == GQ_OP_ROUTER_WGRAD ? 2e-6 : 5e-5;
	} else if (strcmp(name, "miles_bf16") == 0) {
		r.max_rel_fro = 3e-3;
	} else {
		return -1;
	}
	snprintf(r.name, sizeof(r.name), "%s", name);
	*b = r;
	return 0;
}

/* Write v in %e form with prec digits after the point and a bare exponent: "4.1e-3", not
 * "4.1e-03". prec < 0: the fewest digits that read back as v ("3e-3", "2.5e-6"). */
static void format_short(double v, int prec, char *buf, size_t size)
{
	if (prec < 0) {
		for (prec = 0; prec < 17; prec++) {
			snprintf(buf, size, "%.*e", prec, v);
			if (strtod(buf, NULL) == v)
				break;
		}
	}
	snprintf(buf, size, "%.*e", prec, v);
	char *e = strchr(buf, 'e');
	if (!e)
		return; /* inf, nan */
	char *src = e + 1, *dst = e + 1;
	if (*src == '+')
		src++;
	else if (*src == '-')
		*dst++ = *src++;
	while (src[0] == '0' && src[1] != '\0')
		src++;
	memmove(dst, src, strlen(src) + 1);
}

/* The rules in order, the first broken one reported:
 *   1. nonfinite = 0 (always checked, before any norm)
 *   2. violations ≤ max_violations         (when max_violations ≥ 0)
 *   3. rel_fro ≤ max_rel_fro                (when ≥ 0; a NaN figure fails)
 *   4. max_abs_err/max|ref| ≤ max_abs_rel   (when ≥ 0; a NaN figure fails)
 * Returns 1 when all hold, else 0 with the reason. */
int gq_budget_judge(const gq_budget *b, const gq_metrics *m, char *reason, int reason_size)
{
	char fig[32], lim[32];
	size_t size = reason && reason_size > 0 ? (size_t)reason_size : 0;
	if (size)
		reason[0] = '\0';
	if (m->nonfinite > 0) {
		if (size)
			snprintf(reason, size, "nonfinite: %lld NaN/Inf outputs, first at %lld",
			         (long long)m->nonfinite, (long long)m->first_nonfinite);
		return 0;
	}
	if (b->max_violations >= 0 && m->violations > b->max_violations) {
		if (size)
			snprintf(reason, size, "violations: %lld > %lld (first at %lld)",
			         (long long)m->violations, (long long)b->max_violations,
			         (long long)m->first_violation);
		return 0;
	}
	if (b->max_rel_fro >= 0 && !(m->rel_fro <= b->max_rel_fro)) {
		if (size) {
			format_short(m->rel_fro, 1, fig, sizeof(fig));
			format_short(b->max_rel_fro, -1, lim, sizeof(lim));
			snprintf(reason, size, "rel_fro: %s > %s", fig, lim);
		}
		return 0;
	}
	if (b->max_abs_rel >= 0 && !(m->max_abs_rel <= b->max_abs_rel)) {
		if (size) {
			format_short(m->max_abs_rel, 1, fig, sizeof(fig));
			format_short(b->max_abs_rel, -1, lim, sizeof(lim));
			snprintf(reason, size, "max_abs: %s·max|ref| > %s", fig, lim);
		}
		return 0;
	}
	return 1;
}
