/* test_budget.c: the budget presets of DESIGN.md and the judgement (reference/budget.c): rule
 * order, limits at their edge, negative limits unchecked, the reason strings. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "metrics.h"

static gq_metrics figures(double rel_fro, double max_abs_rel);

static void test_presets(void)
{
	gq_budget b;
	CHECK(gq_budget_preset("k1_bf16", GQ_OP_FWD, &b) == 0);
	CHECK(strcmp(b.name, "k1_bf16") == 0);
	CHECK(b.tol.atol == 1e-2 && b.tol.rtol == 1e-2 && b.max_violations == 0);
	CHECK(b.max_rel_fro == 3e-3 && b.max_abs_rel < 0);
	CHECK(gq_budget_preset("k1_fp32", GQ_OP_WGRAD, &b) == 0);
	CHECK(strcmp(b.name, "k1_fp32") == 0);
	CHECK(b.max_violations < 0 && b.max_rel_fro == 5e-5 && b.max_abs_rel == 1e-3);
	CHECK(b.tol.atol == 1e-2 && b.tol.rtol == 1e-2);
	CHECK(gq_budget_preset("router_fp32", GQ_OP_ROUTER_FWD, &b) == 0);
	CHECK(b.max_rel_fro == 5e-5 && b.max_violations < 0 && b.max_abs_rel < 0);
	CHECK(gq_budget_preset("router_fp32", GQ_OP_ROUTER_DGRAD, &b) == 0 &&
	      b.max_rel_fro == 5e-5);
	CHECK(gq_budget_preset("router_fp32", GQ_OP_ROUTER_WGRAD, &b) == 0 &&
	      b.max_rel_fro == 2e-6);
	/* miles_bf16: rel-RMS alone, for every op (projections, a BF16 router dx) */
	CHECK(gq_budget_preset("miles_bf16", GQ_OP_PROJ_WGRAD, &b) == 0);
	CHECK(strcmp(b.name, "miles_bf16") == 0);
	CHECK(b.max_rel_fro == 3e-3 && b.max_violations < 0 && b.max_abs_rel < 0);
	CHECK(gq_budget_preset("miles_bf16", GQ_OP_ROUTER_DGRAD, &b) == 0 && b.max_rel_fro == 3e-3);
	{
		/* many elements off by more than 1e-2 + 1e-2·|ref| pass miles_bf16 with a small
		 * rel_fro, and fail k1_bf16 */
		gq_metrics m = figures(2e-3, 0.1);
		m.violations = 40;
		m.first_violation = 3;
		char reason[200];
		CHECK(gq_budget_judge(&b, &m, reason, sizeof(reason)) == 1);
		gq_budget k1;
		gq_budget_preset("k1_bf16", GQ_OP_FWD, &k1);
		CHECK(gq_budget_judge(&k1, &m, reason, sizeof(reason)) == 0);
		m.rel_fro = 3.1e-3;
		CHECK(gq_budget_judge(&b, &m, reason, sizeof(reason)) == 0 &&
		      strstr(reason, "rel_fro: 3.1e-3 > 3e-3"));
	}
	b.max_rel_fro = 7;
	CHECK(gq_budget_preset("k1_bf17", GQ_OP_FWD, &b) == -1 && b.max_rel_fro == 7);
	CHECK(gq_budget_preset(NULL, GQ_OP_FWD, &b) == -1);
	int n = 0;
	for (; gq_budget_preset_names[n]; n++)
		CHECK(gq_budget_preset(gq_budget_preset_names[n], GQ_OP_FWD, &b) == 0);
	CHECK(n == 4);
}

/* Clean figures: everything zero but the norms given. */
static gq_metrics figures(double rel_fro, double max_abs_rel)
{
	gq_metrics m;
	memset(&m, 0, sizeof(m));
	m.count = 100;
	m.first_nonfinite = m.first_violation = -1;
	m.rel_fro = rel_fro;
	m.max_abs_rel = max_abs_rel;
	return m;
}

static void test_judge(void)
{
	gq_budget bf, f32;
	char reason[128];
	gq_budget_preset("k1_bf16", GQ_OP_FWD, &bf);
	gq_budget_preset("k1_fp32", GQ_OP_FWD, &f32);

	gq_metrics m = figures(1e-3, 0.5);
	CHECK(gq_budget_judge(&bf, &m, reason, sizeof(reason)) == 1 && reason[0] == '\0');
	m.rel_fro = 3e-3; /* at the limit passes */
	CHECK(gq_budget_judge(&bf, &m, NULL, 0) == 1);
	m.rel_fro = 4.1e-3;
	CHECK(gq_budget_judge(&bf, &m, reason, sizeof(reason)) == 0);
	CHECK_MSG(strcmp(reason, "rel_fro: 4.1e-3 > 3e-3") == 0, "%s", reason);
	m.rel_fro = NAN;
	CHECK(gq_budget_judge(&bf, &m, reason, sizeof(reason)) == 0);
	CHECK(strncmp(reason, "rel_fro: ", 9) == 0);

	/* violations come before the norms */
	m = figures(1, 1);
	m.violations = 12;
	m.first_violation = 1033;
	CHECK(gq_budget_judge(&bf, &m, reason, sizeof(reason)) == 0);
	CHECK_MSG(strcmp(reason, "violations: 12 > 0 (first at 1033)") == 0, "%s", reason);
	/* k1_fp32 keeps violations as data, then checks rel_fro */
	CHECK(gq_budget_judge(&f32, &m, reason, sizeof(reason)) == 0);
	CHECK_MSG(strcmp(reason, "rel_fro: 1.0e0 > 5e-5") == 0, "%s", reason);

	/* NaN/Inf before anything */
	m.nonfinite = 3;
	m.first_nonfinite = 17;
	CHECK(gq_budget_judge(&bf, &m, reason, sizeof(reason)) == 0);
	CHECK_MSG(strcmp(reason, "nonfinite: 3 NaN/Inf outputs, first at 17") == 0, "%s", reason);
	gq_budget none = {
	    .name = "custom", .max_violations = -1, .max_rel_fro = -1, .max_abs_rel = -1};
	CHECK(gq_budget_judge(&none, &m, reason, sizeof(reason)) == 0);
	m.nonfinite = 0;
	CHECK(gq_budget_judge(&none, &m, reason, sizeof(reason)) == 1); /* no limits: passes */

	/* max_abs after rel_fro */
	m = figures(1e-5, 2.0e-3);
	CHECK(gq_budget_judge(&f32, &m, reason, sizeof(reason)) == 0);
	CHECK_MSG(strcmp(reason, "max_abs: 2.0e-3·max|ref| > 1e-3") == 0, "%s", reason);
	m.max_abs_rel = 1e-3;
	CHECK(gq_budget_judge(&f32, &m, reason, sizeof(reason)) == 1);
	gq_budget router;
	gq_budget_preset("router_fp32", GQ_OP_ROUTER_WGRAD, &router);
	m = figures(2.5e-6, 0);
	CHECK(gq_budget_judge(&router, &m, reason, sizeof(reason)) == 0);
	CHECK_MSG(strcmp(reason, "rel_fro: 2.5e-6 > 2e-6") == 0, "%s", reason);
	/* a short buffer is cut, not overrun */
	char tiny[8];
	memset(tiny, 'x', sizeof(tiny));
	CHECK(gq_budget_judge(&router, &m, tiny, 6) == 0 && strlen(tiny) == 5 && tiny[7] == 'x');
}

/* The whole path: figures computed from an output, then judged. */
static void test_judge_computed(void)
{
	double ref[4] = {1, 2, 3, 4};
	float out[4] = {1, 2, 3, 4.5f};
	gq_budget b;
	gq_metrics m;
	char reason[128];
	gq_budget_preset("k1_bf16", GQ_OP_FWD, &b);
	gq_metrics_compute(out, GQ_DTYPE_FP32, ref, NULL, 4, 16, b.tol, &m);
	CHECK(gq_budget_judge(&b, &m, reason, sizeof(reason)) == 0);
	CHECK_MSG(strcmp(reason, "violations: 1 > 0 (first at 3)") == 0, "%s", reason);
	out[3] = 4.0f;
	gq_metrics_compute(out, GQ_DTYPE_FP32, ref, NULL, 4, 16, b.tol, &m);
	CHECK(gq_budget_judge(&b, &m, reason, sizeof(reason)) == 1);
}

int main(void)
{
	test_presets();
	test_judge();
	test_judge_computed();
	return gq_check_exit("test_budget");
}
