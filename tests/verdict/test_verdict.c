/* test_verdict.c: the rules of verdict.h on made-up results documents.
 *
 * 1. Regions and outcomes: the op region joins the A/A band; an interval inside is a pass,
 *    outside a fail, across an edge undecided; a band that stops below min_speedup leaves a gap.
 * 2. Points: a fast accurate candidate is qualified; one slower beyond the band is slower and
 *    names rule, mode, step, seed and figure; an interval across the threshold is inconclusive;
 *    a failed seed is inaccurate with its metric and figure; a timing error is error; a step 2 %
 *    slower breaks max_step_slowdown (1.3 %) and 1 % does not; pending timing gives no verdict;
 *    a mode neither arm could time is not judged; an incumbent that misses the budget makes a
 *    disclosed zone of consecutive points. */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "verdict.h"

static const gq_decision_spec defaults = {
    .min_speedup = 1.0, .accept_aa_band = 1, .max_step_slowdown = 0.013, .k_block_parity = 0};

static void test_regions(void)
{
	gq_accept_region r;
	gq_verdict_op_region(&defaults, 0.98, 1.02, &r);
	CHECK(r.count == 1 && r.lo[0] == 0.98 && isinf(r.hi[0]));
	CHECK(gq_verdict_judge(&r, 1.00, 0.99, 1.01) == GQ_RULE_PASS);
	CHECK(gq_verdict_judge(&r, 0.985, 0.981, 0.99) == GQ_RULE_PASS);
	CHECK(gq_verdict_judge(&r, 0.95, 0.94, 0.96) == GQ_RULE_FAIL);
	CHECK(gq_verdict_judge(&r, 0.98, 0.97, 0.99) == GQ_RULE_UNDECIDED);
	/* The estimate widens an interval that does not hold it. */
	CHECK(gq_verdict_judge(&r, 0.97, 0.99, 1.01) == GQ_RULE_UNDECIDED);
	CHECK(gq_verdict_judge(&r, NAN, 0.99, 1.01) == GQ_RULE_UNDECIDED);
	CHECK(gq_verdict_judge(&r, 1.2, NAN, NAN) == GQ_RULE_PASS);

	gq_decision_spec strict = defaults;
	strict.min_speedup = 1.05; /* the band [0.98, 1.02] stops below it: two intervals */
	gq_verdict_op_region(&strict, 0.98, 1.02, &r);
	CHECK(r.count == 2 && r.lo[0] == 0.98 && r.hi[0] == 1.02 && r.lo[1] == 1.05);
	CHECK(gq_verdict_judge(&r, 1.00, 0.99, 1.01) == GQ_RULE_PASS);
	CHECK(gq_verdict_judge(&r, 1.035, 1.03, 1.04) == GQ_RULE_FAIL);
	CHECK(gq_verdict_judge(&r, 1.03, 1.01, 1.06) == GQ_RULE_UNDECIDED);
	CHECK(gq_verdict_judge(&r, 1.10, 1.06, 1.12) == GQ_RULE_PASS);

	strict.accept_aa_band = 0;
	gq_verdict_op_region(&strict, 0.98, 1.02, &r);
	CHECK(r.count == 1 && r.lo[0] == 1.05);

	gq_verdict_step_region(&defaults, &r);
	CHECK(fabs(r.lo[0] - 1 / 1.013) < 1e-15);
	CHECK(gq_verdict_judge(&r, 1 / 1.02, 1 / 1.021, 1 / 1.019) == GQ_RULE_FAIL);
	CHECK(gq_verdict_judge(&r, 1 / 1.01, 1 / 1.011, 1 / 1.009) == GQ_RULE_PASS);
}

/* ---- made-up documents ------------------------------------------------------------------- */

static json_t *seed(int s, int pass, const char *reason, double rel_fro)
{
	return json_pack("{s:i, s:b, s:i, s:o, s:s, s:b, s:i, s:{s:i, s:i, s:f, s:f}}", "seed", s,
	                 "pass", pass, "reruns", 5, "first_failing_rerun",
	                 pass ? json_null() : json_integer(2), "reason", reason,
	                 "bitwise_identical", 1, "max_differing", 0, "worst", "nonfinite", 0,
	                 "violations", 0, "rel_fro", rel_fro, "max_abs_rel", 1e-6);
}

static json_t *program(const char *name, const char *arm, const char *status, int failing_seed)
{
	json_t *seeds = json_array();
	for (int s = 0; s < 3; s++) {
		int pass = s != failing_seed;
		json_array_append_new(seeds, seed(s, pass, pass ? "" : "rel_fro: 4.1e-03 > 3e-03",
		                                  pass ? 1e-4 : 4.1e-3));
	}
	return json_pack("{s:s, s:[s], s:s, s:s, s:i, s:o}", "program", name, "arms", arm, "status",
	                 status, "message",
	                 !strcmp(status, "error") ? "wrote past the end of its output" : "",
	                 "failed_seeds", failing_seed >= 0, "seeds", seeds);
}

static json_t *point(const char *id, long t, const char *inc_status, int inc_failing,
                     const char *cand_status, int cand_failing)
{
	return json_pack("{s:s, s:s, s:i, s:i, s:I, s:s, s:s, s:{s:s, s:f}, s:{s:b, s:[o, o]}}",
	                 "id", id, "op", "wgrad", "d_in", 4096, "d_out", 32, "t", (json_int_t)t,
	                 "in", "bf16", "out", "bf16", "budget", "name", "k1_bf16", "max_rel_fro",
	                 3e-3, "accuracy", "done", 1, "programs",
	                 program("cublas:default", "incumbent", inc_status, inc_failing),
	                 program("cublaslt:heuristic", "candidate", cand_status, cand_failing));
}

static json_t *series(const char *arm, const char *mode, const char *step, const char *status,
                      double median)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}", "arm", arm, "mode", mode, "step", step,
	                 "status", status, "message",
	                 !strcmp(status, "error") ? "process 2: cudaGraphLaunch failed" : "",
	                 "median_ns", isfinite(median) ? json_real(median) : json_null());
}

/* A timing point: both arms timed in eager mode, graph unsupported for both; the candidate's
 * speedup (estimate, lo, hi) in step op and the step bwd slowdown as a speedup. */
static json_t *tpoint(const char *id, const char *status, double est, double lo, double hi,
                      double bwd)
{
	json_t *s = json_array(), *sp = json_array();
	const char *steps[2] = {"op", "bwd"};
	for (int k = 0; k < 2; k++) {
		double e = k ? bwd : est;
		json_array_append_new(s,
		                      series("incumbent", "graph", steps[k], "unsupported", NAN));
		json_array_append_new(s,
		                      series("candidate", "graph", steps[k], "unsupported", NAN));
		json_array_append_new(s, series("incumbent", "eager", steps[k], status, 1000.0));
		json_array_append_new(s,
		                      series("candidate", "eager", steps[k], status, 1000.0 / e));
		if (!strcmp(status, "ok"))
			json_array_append_new(
			    sp, json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:f}", "mode", "eager",
			                  "step", steps[k], "baseline", "incumbent", "new",
			                  "candidate", "estimate", e, "lo", k ? e * 0.999 : lo,
			                  "hi", k ? e * 1.001 : hi));
	}
	return json_pack("{s:s, s:s, s:[], s:o, s:o}", "id", id, "status",
	                 !strcmp(status, "error") ? "error" : status, "errors", "series", s,
	                 "speedups", sp);
}

static json_t *doc_of(json_t *points, json_t *tpoints)
{
	return json_pack("{s:o, s:{s:{s:[s,s], s:[s,s]}, s:o, s:{s:f, s:f, s:i}}}", "points",
	                 points, "timing", "method", "modes", "graph", "eager", "steps", "op",
	                 "bwd", "points", tpoints, "aa_band", "lo", 0.98, "hi", 1.02, "count", 12);
}

static const json_t *verdict(const json_t *doc, int i)
{
	return json_object_get(json_array_get(json_object_get(doc, "points"), (size_t)i),
	                       "verdict");
}

static const char *status_of(const json_t *doc, int i)
{
	const char *s = json_string_value(json_object_get(verdict(doc, i), "status"));
	return s ? s : "null";
}

static const json_t *reason(const json_t *doc, int i, const char *rule)
{
	size_t k;
	const json_t *r;
	json_array_foreach(json_object_get(verdict(doc, i), "reasons"), k, r)
	{
		if (!strcmp(json_string_value(json_object_get(r, "rule")), rule))
			return r;
	}
	return NULL;
}

static void test_points(void)
{
	json_t *points = json_array(), *tpoints = json_array();
	struct {
		const char *id;
		long t;
		const char *inc, *cand;
		int inc_fail, cand_fail;
		const char *tstatus;
		double est, lo, hi, bwd;
	} cases[] = {
	    {"p0", 1025, "pass", "pass", -1, -1, "ok", 1.10, 1.08, 1.12, 1.0},    /* qualified */
	    {"p1", 2049, "pass", "pass", -1, -1, "ok", 0.99, 0.985, 0.995, 1.0},  /* in band */
	    {"p2", 4097, "pass", "pass", -1, -1, "ok", 0.95, 0.94, 0.96, 1.0},    /* slower */
	    {"p3", 8193, "pass", "pass", -1, -1, "ok", 0.985, 0.97, 1.00, 1.0},   /* inconcl. */
	    {"p4", 12289, "pass", "fail", -1, 1, "ok", 1.10, 1.08, 1.12, 1.0},    /* inaccurate */
	    {"p5", 16385, "pass", "error", -1, -1, "ok", 1.10, 1.08, 1.12, 1.0},  /* error */
	    {"p6", 20481, "pass", "pass", -1, -1, "error", 1.1, 1.08, 1.12, 1.0}, /* error */
	    {"p7", 24577, "pass", "pass", -1, -1, "ok", 1.10, 1.08, 1.12, 1 / 1.02}, /* step */
	    {"p8", 28673, "pass", "pass", -1, -1, "ok", 1.10, 1.08, 1.12, 1 / 1.01}, /* step ok */
	    {"p9", 32769, "pass", "pass", -1, -1, "pending", 1.1, 1.08, 1.12, 1.0},  /* pending */
	    {"p10", 36865, "fail", "fail", 0, 0, "ok", 1.10, 1.08, 1.12, 1.0},       /* disclosed */
	    {"p11", 40961, "fail", "pass", 2, -1, "ok", 1.10, 1.08, 1.12, 1.0},      /* disclosed */
	};
	int n = (int)(sizeof(cases) / sizeof(cases[0]));
	for (int i = 0; i < n; i++) {
		json_array_append_new(points,
		                      point(cases[i].id, cases[i].t, cases[i].inc,
		                            cases[i].inc_fail, cases[i].cand, cases[i].cand_fail));
		json_array_append_new(tpoints, tpoint(cases[i].id, cases[i].tstatus, cases[i].est,
		                                      cases[i].lo, cases[i].hi, cases[i].bwd));
	}
	json_t *doc = doc_of(points, tpoints);
	gq_error err;
	gq_error_clear(&err);
	CHECK(gq_verdict_apply(doc, &defaults, 7, &err) == GQ_OK);
	const char *want[] = {"qualified",  "qualified", "slower",     "inconclusive",
	                      "inaccurate", "error",     "error",      "slower",
	                      "qualified",  "null",      "inaccurate", "qualified"};
	for (int i = 0; i < n; i++)
		CHECK_MSG(!strcmp(status_of(doc, i), want[i]), "%s: %s, expected %s", cases[i].id,
		          status_of(doc, i), want[i]);

	const json_t *r = reason(doc, 2, "op_speedup");
	CHECK(r && !strcmp(json_string_value(json_object_get(r, "mode")), "eager") &&
	      !strcmp(json_string_value(json_object_get(r, "step")), "op") &&
	      json_integer_value(json_object_get(r, "seed")) == 7 &&
	      fabs(json_real_value(json_object_get(r, "figure")) - 0.95) < 1e-12 &&
	      fabs(json_real_value(json_object_get(r, "threshold")) - 0.98) < 1e-12 &&
	      !strcmp(json_string_value(json_object_get(r, "outcome")), "fail"));
	CHECK(json_array_size(json_object_get(verdict(doc, 0), "reasons")) == 0);
	r = reason(doc, 3, "op_speedup");
	CHECK(r && !strcmp(json_string_value(json_object_get(r, "outcome")), "undecided"));
	r = reason(doc, 4, "accuracy");
	CHECK(r && json_integer_value(json_object_get(r, "seed")) == 1 &&
	      !strcmp(json_string_value(json_object_get(r, "metric")), "rel_fro") &&
	      fabs(json_real_value(json_object_get(r, "figure")) - 4.1e-3) < 1e-15 &&
	      fabs(json_real_value(json_object_get(r, "threshold")) - 3e-3) < 1e-15 &&
	      json_is_null(json_object_get(r, "mode")) &&
	      strstr(json_string_value(json_object_get(r, "message")), "seed 1"));
	r = reason(doc, 5, "accuracy");
	CHECK(r && strstr(json_string_value(json_object_get(r, "message")), "wrote past the end"));
	r = reason(doc, 6, "timing");
	CHECK(r && strstr(json_string_value(json_object_get(r, "message")), "cudaGraphLaunch"));
	r = reason(doc, 7, "step_slowdown");
	CHECK(r && !strcmp(json_string_value(json_object_get(r, "step")), "bwd") &&
	      fabs(json_real_value(json_object_get(r, "figure")) - 0.02) < 1e-9);
	CHECK(!reason(doc, 8, "step_slowdown"));
	CHECK(json_is_null(verdict(doc, 9)));
	/* Graph mode (unsupported for both arms) is never judged. */
	char *text = json_dumps(verdict(doc, 2), 0);
	CHECK(text && !strstr(text, "graph"));
	free(text);

	CHECK(json_is_true(json_object_get(verdict(doc, 10), "disclosed")));
	CHECK(json_is_true(json_object_get(verdict(doc, 11), "disclosed")));
	CHECK(!json_is_true(json_object_get(verdict(doc, 0), "disclosed")));
	const json_t *disc = json_object_get(verdict(doc, 11), "disclosure");
	CHECK(json_integer_value(json_object_get(disc, "seed")) == 2 &&
	      !strcmp(json_string_value(json_object_get(disc, "metric")), "rel_fro"));
	const json_t *q = json_object_get(doc, "qualification");
	const json_t *zones = json_object_get(q, "disclosed_zones");
	CHECK(json_array_size(zones) == 1);
	const json_t *z = json_array_get(zones, 0);
	CHECK(json_integer_value(json_object_get(z, "t_min")) == 36865 &&
	      json_integer_value(json_object_get(z, "t_max")) == 40961 &&
	      json_integer_value(json_object_get(z, "points")) == 2);
	const json_t *counts = json_object_get(q, "counts");
	CHECK(json_integer_value(json_object_get(counts, "qualified")) == 4);
	CHECK(json_integer_value(json_object_get(counts, "slower")) == 2);
	CHECK(json_integer_value(json_object_get(counts, "inconclusive")) == 1);
	CHECK(json_integer_value(json_object_get(counts, "inaccurate")) == 2);
	CHECK(json_integer_value(json_object_get(counts, "error")) == 2);
	CHECK(json_integer_value(json_object_get(counts, "pending")) == 1);
	CHECK(json_integer_value(json_object_get(counts, "disclosed")) == 2);

	/* Without the A/A band, p1 (0.99, inside the band) is slower. */
	json_t *copy = json_deep_copy(doc);
	gq_decision_spec no_band = defaults;
	no_band.accept_aa_band = 0;
	CHECK(gq_verdict_apply(copy, &no_band, 7, &err) == GQ_OK);
	CHECK(!strcmp(status_of(copy, 1), "slower"));
	json_decref(copy);

	/* Timing points that are not the results' points are refused. */
	json_object_set_new(json_array_get(tpoints, 3), "id", json_string("other"));
	gq_error_clear(&err);
	CHECK(gq_verdict_apply(doc, &defaults, 7, &err) == GQ_ERR_INPUT);
	json_decref(doc);
}

int main(void)
{
	test_regions();
	test_points();
	return gq_check_exit("test_verdict");
}
