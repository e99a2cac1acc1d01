/* test_timing_results.c: the parent's statistics over worker processes, from synthetic samples:
 * per-process medians and their median (median of medians), speedups with the bootstrap
 * interval (the same numbers stats.h gives on the same nested data), A/A ratios and the band
 * (all, per mode and step, and over long ops only), the precision each process's median
 * reached, how a crashed or pending process shows, and the "timing" section's structure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "timing_results.h"

static const char protocol[] =
    "{\"format_version\": 1, \"name\": \"t\", \"points\": [{\"op\": \"wgrad\", \"shapes\": "
    "[{\"d_in\": 64, \"d_out\": 32}], \"tokens\": [65, 512, 999], \"dtypes\": {\"in\": "
    "\"bf16\", \"out\": \"fp32\"}}], \"arms\": {\"incumbent\": {\"wgrad\": \"host:ref\"}, "
    "\"candidate\": {\"wgrad\": \"host:split\"}}}";

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-9 * fabs(b))

/* Series (arm, graph, op) of pt: n samples base + scale·k for k = 0..n-1 (median base +
 * scale·(n−1)/2). */
static void put(gq_timing_point *pt, gq_timing_arm arm, int n, double base, double scale)
{
	gq_timing_series *se = &pt->series[arm][GQ_MODE_GRAPH][GQ_STEP_OP];
	se->requested = 1;
	se->status = GQ_OK;
	se->kernels = 1;
	se->count = n;
	se->span_ns = malloc((size_t)n * sizeof(double));
	se->busy_ns = malloc((size_t)n * sizeof(double));
	for (int k = 0; k < n; k++) {
		se->span_ns[k] = base + scale * k;
		se->busy_ns[k] = 0.5 * (base + scale * k);
	}
	snprintf(se->programs, sizeof(se->programs), "wgrad=%s", gq_timing_arm_name(arm));
}

/* A point as process p measured it: every other series unsupported (eager) or not requested. */
static void fill(gq_timing_point *pt, const gq_timing_data *d, int index, int p, double inc,
                 double twin, double cand)
{
	memset(pt, 0, sizeof(*pt));
	pt->index = index;
	pt->problem = d->points[index];
	for (int a = 0; a < GQ_TIMING_ARM_COUNT; a++)
		for (int m = 0; m < GQ_MODE_COUNT; m++)
			for (int s = 0; s < GQ_STEP_COUNT; s++) {
				gq_timing_series *se = &pt->series[a][m][s];
				se->status = GQ_ERR_UNSUPPORTED;
				snprintf(se->message, sizeof(se->message), "%s",
				         m == GQ_MODE_EAGER && s == GQ_STEP_OP &&
				                 a != GQ_TIMING_ARM_SOTA
				             ? "eager is not timed in this test"
				             : "not requested");
			}
	/* Process p: an odd count (median is the middle sample) of its own size. */
	put(pt, GQ_TIMING_ARM_INCUMBENT, 5 + 2 * p, inc + p, 1);
	put(pt, GQ_TIMING_ARM_TWIN, 7, twin + p, 2);
	put(pt, GQ_TIMING_ARM_CANDIDATE, 9, cand + p, 1);
	pt->series[GQ_TIMING_ARM_INCUMBENT][GQ_MODE_GRAPH][GQ_STEP_OP].clock_after =
	    (gq_clock_sample){.valid = 1, .sm_mhz = p == 3 ? 1000 : 1980, .max_sm_mhz = 1980};
	snprintf(pt->sota[GQ_OP_WGRAD], sizeof(pt->sota[0]), "cublaslt:algo:%d", p);
}

static void store(gq_timing_data *d, int index, int p, double inc, double twin, double cand)
{
	gq_timing_point pt;
	fill(&pt, d, index, p, inc, twin, cand);
	gq_error err;
	gq_error_clear(&err);
	CHECK_MSG(gq_timing_data_store(d, p, &pt, NULL, &err) == GQ_OK, "%s", err.message);
	gq_timing_point_free(&pt);
}

int main(void)
{
	gq_protocol proto;
	gq_error err;
	gq_error_clear(&err);
	int parsed =
	    gq_protocol_parse(protocol, sizeof(protocol) - 1, "<test>", &proto, &err) == GQ_OK;
	CHECK_MSG(parsed, "%s", err.message);
	if (!parsed)
		return gq_check_exit("test_timing_results");
	gq_timing_data d;
	CHECK(gq_timing_data_init(&d, &proto, 1, &err) == GQ_OK);
	CHECK(d.point_count == 3 && d.process_count == 4);
	CHECK(d.process[2].slot.layout == GQ_LAYOUT_BLOCKED &&
	      d.process[2].slot.reverse_allocation);

	/* Point 0 (T 65): incumbent medians (5 + 2p samples of inc + p + k) = inc + p + (2 + p):
	 * 10000 + {2, 4, 6, 8}; median of medians 10005. Twin: 20000 + p + 6: {6, 7, 8, 9} →
	 * 20007.5. Candidate: 5000 + p + 4 → 5005.5. */
	for (int p = 0; p < 4; p++)
		store(&d, 0, p, 10000, 20000, 5000);
	gq_timing_agg g;
	gq_timing_aggregate(&d, 0, GQ_TIMING_ARM_INCUMBENT, GQ_MODE_GRAPH, GQ_STEP_OP, &g);
	CHECK_MSG(strcmp(g.status, "ok") == 0, "%s %s", g.status, g.message);
	CHECK(g.processes == 4 && g.samples[0] == 5 && g.samples[3] == 11);
	CHECK(g.process_median_ns[0] == 10002 && g.process_median_ns[3] == 10008);
	CHECK_MSG(g.median_ns == 10005, "median of medians %g", g.median_ns);
	CHECK(g.busy_median_ns == 5002.5);
	CHECK(g.kernels == 1 && strcmp(g.programs, "wgrad=incumbent") == 0);
	CHECK(g.throttled == 1); /* process 3 read 1000 of 1980 MHz */
	/* Precision reached: process 0's 5 samples have no 95 % interval; process 1's 7 samples
	 * 10001 … 10007 give [x₍₁₎, x₍₇₎], half-width 3 over the median 10004; process 3's 11
	 * samples 10003 … 10013 give [x₍₂₎, x₍₁₀₎] = [10004, 10012], 4 over 10008. */
	CHECK(isnan(g.process_rel_ci[0]));
	CHECK(NEAR(g.process_rel_ci[1], 3.0 / 10004) && NEAR(g.process_rel_ci[3], 4.0 / 10008));
	gq_timing_aggregate(&d, 0, GQ_TIMING_ARM_TWIN, GQ_MODE_GRAPH, GQ_STEP_OP, &g);
	CHECK(g.median_ns == 20007.5);
	gq_timing_aggregate(&d, 0, GQ_TIMING_ARM_INCUMBENT, GQ_MODE_EAGER, GQ_STEP_OP, &g);
	CHECK(strcmp(g.status, "unsupported") == 0 &&
	      strcmp(g.message, "eager is not timed in this test") == 0);
	gq_timing_aggregate(&d, 0, GQ_TIMING_ARM_SOTA, GQ_MODE_GRAPH, GQ_STEP_BWD, &g);
	CHECK(!g.requested && strcmp(g.status, "not requested") == 0);

	/* The speedup incumbent / candidate and its interval: the same as stats.h on the same
	 * nested samples. */
	gq_stats_ci ci, direct;
	int procs = 0;
	CHECK(gq_timing_speedup(&d, 0, GQ_TIMING_ARM_INCUMBENT, GQ_TIMING_ARM_CANDIDATE,
	                        GQ_MODE_GRAPH, GQ_STEP_OP, NULL, &ci, &procs, &err) == GQ_OK);
	CHECK(procs == 4);
	CHECK_MSG(NEAR(ci.estimate, 10005.0 / 5005.5), "estimate %g", ci.estimate);
	CHECK(ci.lo <= ci.estimate && ci.estimate <= ci.hi && ci.lo < ci.hi);
	double inc_x[64], cand_x[64];
	int inc_n[4], cand_n[4], ni = 0, nc = 0;
	for (int p = 0; p < 4; p++) {
		const gq_timing_point *pt = &gq_timing_data_cell(&d, 0, p)->pt;
		const gq_timing_series *a = &pt->series[GQ_TIMING_ARM_INCUMBENT][0][0];
		const gq_timing_series *b = &pt->series[GQ_TIMING_ARM_CANDIDATE][0][0];
		memcpy(inc_x + ni, a->span_ns, (size_t)a->count * sizeof(double));
		memcpy(cand_x + nc, b->span_ns, (size_t)b->count * sizeof(double));
		inc_n[p] = a->count, cand_n[p] = b->count;
		ni += a->count, nc += b->count;
	}
	gq_stats_nested bn = {inc_x, inc_n, 4}, nn = {cand_x, cand_n, 4};
	CHECK(gq_stats_speedup_ci(&bn, &nn, NULL, &direct, &err) == GQ_OK);
	CHECK(direct.lo == ci.lo && direct.hi == ci.hi && direct.estimate == ci.estimate);
	/* No sota was timed: no speedup. */
	CHECK(gq_timing_speedup(&d, 0, GQ_TIMING_ARM_INCUMBENT, GQ_TIMING_ARM_SOTA, GQ_MODE_GRAPH,
	                        GQ_STEP_OP, NULL, &ci, &procs, NULL) == GQ_ERR_INPUT &&
	      procs == 0 && isnan(ci.estimate));

	/* A/A: incumbent / twin = 10005 / 20007.5, and per process. */
	double per[GQ_TIMING_MAX_SLOTS];
	double aa = gq_timing_aa(&d, 0, GQ_MODE_GRAPH, GQ_STEP_OP, per);
	CHECK(NEAR(aa, 10005.0 / 20007.5));
	CHECK(NEAR(per[0], 10002.0 / 20006.0) && NEAR(per[3], 10008.0 / 20009.0));
	CHECK(isnan(gq_timing_aa(&d, 0, GQ_MODE_EAGER, GQ_STEP_OP, NULL)));

	/* Point 1 (T 512): incumbent ≈ 30000, twin ≈ 30000 (ratio near 1); process 2 crashed on
	 * it. Point 2 (T 999): a short op (≈ 5 µs) of ratio ≈ 0.42, and process 1 never reported
	 * it.
	 */
	for (int p = 0; p < 4; p++)
		store(&d, 1, p, 30000, 29996, 40000);
	gq_timing_data_fail(&d, 1, 2, "the worker was killed by signal 11 while timing it");
	gq_timing_data_fail(&d, 1, 2, "a second reason is ignored");
	for (int p = 0; p < 4; p++)
		if (p != 1)
			store(&d, 2, p, 5000, 12000, 5000);
	gq_timing_aggregate(&d, 1, GQ_TIMING_ARM_INCUMBENT, GQ_MODE_GRAPH, GQ_STEP_OP, &g);
	CHECK_MSG(strcmp(g.status, "error") == 0 &&
	              strcmp(g.message, "process 2: the worker was killed by signal 11 while "
	                                "timing it") == 0,
	          "%s: %s", g.status, g.message);
	CHECK(g.processes == 3 && isnan(g.process_median_ns[2]));
	CHECK(g.median_ns == 30000 + 4); /* medians 30002, 30004, 30008: the crashed one left out */
	CHECK(gq_timing_speedup(&d, 1, GQ_TIMING_ARM_INCUMBENT, GQ_TIMING_ARM_CANDIDATE,
	                        GQ_MODE_GRAPH, GQ_STEP_OP, NULL, &ci, &procs, &err) == GQ_OK &&
	      procs == 3);
	gq_timing_aggregate(&d, 2, GQ_TIMING_ARM_INCUMBENT, GQ_MODE_GRAPH, GQ_STEP_OP, &g);
	CHECK(strcmp(g.status, "pending") == 0 && g.processes == 3);

	/* The band over every ratio, per mode and step, and over incumbents ≥ 10 µs only. */
	double r0 = gq_timing_aa(&d, 0, GQ_MODE_GRAPH, GQ_STEP_OP, NULL);
	double r1 = gq_timing_aa(&d, 1, GQ_MODE_GRAPH, GQ_STEP_OP, NULL);
	double r2 = gq_timing_aa(&d, 2, GQ_MODE_GRAPH, GQ_STEP_OP, NULL);
	CHECK(r2 < r0 && r0 < r1 && r1 > 0.99 && r1 < 1.01);
	gq_timing_band b;
	gq_timing_aa_band(&d, -1, -1, 0, &b);
	CHECK(b.count == 3 && b.lo == r2 && b.hi == r1);
	/* where each end was measured */
	CHECK(b.lo_at.point == 2 && b.lo_at.mode == GQ_MODE_GRAPH && b.lo_at.step == GQ_STEP_OP);
	CHECK(b.hi_at.point == 1 && b.hi_at.mode == GQ_MODE_GRAPH && b.hi_at.step == GQ_STEP_OP);
	gq_timing_aa_band(&d, GQ_MODE_GRAPH, GQ_STEP_OP, GQ_TIMING_AA_LONG_NS, &b);
	CHECK(b.count == 2 && b.lo == r0 && b.hi == r1);
	CHECK(b.lo_at.point == 0 && b.hi_at.point == 1);
	gq_timing_aa_band(&d, GQ_MODE_EAGER, -1, 0, &b);
	CHECK(b.count == 0 && isnan(b.lo) && isnan(b.hi));
	CHECK(b.lo_at.point == -1 && b.hi_at.point == -1);

	/* A worker's point that is not the protocol's. */
	gq_timing_point wrong;
	fill(&wrong, &d, 0, 0, 1, 1, 1);
	wrong.problem.t = 66;
	gq_error_clear(&err);
	CHECK(gq_timing_data_store(&d, 0, &wrong, NULL, &err) == GQ_ERR_INPUT);
	wrong.problem.t = 65;
	wrong.index = 3;
	CHECK(gq_timing_data_store(&d, 0, &wrong, NULL, NULL) == GQ_ERR_INPUT);
	gq_timing_point_free(&wrong);

	/* The section. */
	d.process[0].finished = d.process[2].finished = d.process[3].finished = 1;
	d.process[2].failures = 1;
	d.process[2].workers = 2;
	json_t *t = gq_timing_results_json(&d, NULL);
	CHECK(json_integer_value(json_object_get(t, "format_version")) == 2);
	CHECK(strcmp(json_string_value(json_object_get(t, "backend")), "host-clock") == 0);
	json_t *procs_j = json_object_get(t, "processes");
	CHECK(json_array_size(procs_j) == 4);
	CHECK(strcmp(json_string_value(json_object_get(json_array_get(procs_j, 2), "status")),
	             "error") == 0);
	CHECK(strcmp(json_string_value(json_object_get(json_array_get(procs_j, 1), "status")),
	             "pending") == 0);
	CHECK(strcmp(json_string_value(json_object_get(json_array_get(procs_j, 3), "allocation")),
	             "sota, twin, candidate, incumbent") == 0);
	json_t *pts = json_object_get(t, "points");
	CHECK(json_array_size(pts) == 3);
	json_t *p0 = json_array_get(pts, 0), *p1 = json_array_get(pts, 1),
	       *p2 = json_array_get(pts, 2);
	CHECK(strcmp(json_string_value(json_object_get(p0, "id")), "wgrad/64x32/T65/bf16-fp32") ==
	      0);
	CHECK(strcmp(json_string_value(json_object_get(p0, "status")), "ok") == 0);
	CHECK(strcmp(json_string_value(json_object_get(p1, "status")), "error") == 0);
	CHECK(json_array_size(json_object_get(p1, "errors")) == 1);
	CHECK(strcmp(json_string_value(json_object_get(p2, "status")), "pending") == 0);
	json_t *sota = json_object_get(json_object_get(p0, "sota"), "wgrad");
	CHECK(json_array_size(sota) == 4 &&
	      strcmp(json_string_value(json_array_get(sota, 3)), "cublaslt:algo:3") == 0);
	/* Series: the three timed arms in graph mode plus the unsupported eager ones. */
	int timed = 0;
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(p0, "series"), i, s)
	{
		if (strcmp(json_string_value(json_object_get(s, "status")), "ok") != 0)
			continue;
		timed++;
		CHECK(json_array_size(json_object_get(s, "per_process_median_ns")) == 4);
		CHECK(json_array_size(json_object_get(s, "samples")) == 4);
		json_t *rel = json_object_get(s, "per_process_rel_ci");
		CHECK(json_array_size(rel) == 4 && json_is_real(json_array_get(rel, 3)));
		if (strcmp(json_string_value(json_object_get(s, "arm")), "incumbent") == 0) {
			CHECK(json_real_value(json_object_get(s, "median_ns")) == 10005);
			CHECK(json_is_null(json_array_get(rel, 0)) &&
			      NEAR(json_real_value(json_array_get(rel, 3)), 4.0 / 10008));
		}
	}
	CHECK(timed == 3);
	json_t *sp = json_array_get(json_object_get(p0, "speedups"), 0);
	CHECK(strcmp(json_string_value(json_object_get(sp, "new")), "candidate") == 0 &&
	      json_is_real(json_object_get(sp, "lo")) && json_is_real(json_object_get(sp, "hi")));
	json_t *aa0 = json_array_get(json_object_get(p0, "aa"), 0);
	CHECK(NEAR(json_real_value(json_object_get(aa0, "ratio")), r0));
	json_t *band = json_object_get(t, "aa_band");
	CHECK(json_real_value(json_object_get(band, "lo")) == r2 &&
	      json_integer_value(json_object_get(band, "count")) == 3);
	CHECK(json_integer_value(
	          json_object_get(json_object_get(band, "at_least_10us"), "count")) == 2);
	CHECK(json_integer_value(
	          json_object_get(json_object_get(band, "op_at_least_10us"), "count")) == 2);
	/* the ends name their point (by its id), mode and step */
	const json_t *lo_at = json_object_get(band, "lo_at"), *hi_at = json_object_get(band, "hi_at");
	CHECK(json_equal(json_object_get(lo_at, "point"), json_object_get(p2, "id")) &&
	      strcmp(json_string_value(json_object_get(lo_at, "mode")), "graph") == 0 &&
	      strcmp(json_string_value(json_object_get(lo_at, "step")), "op") == 0);
	CHECK(json_equal(json_object_get(hi_at, "point"), json_object_get(p1, "id")));
	CHECK(json_equal(json_object_get(json_object_get(json_object_get(band, "at_least_10us"),
	                                                 "lo_at"),
	                                 "point"),
	                 json_object_get(p0, "id")));
	/* how series stop: this protocol has no max_iterations, so fixed counts */
	json_t *method = json_object_get(t, "method");
	json_t *stop = json_object_get(method, "stop");
	CHECK(strcmp(json_string_value(json_object_get(stop, "rule")), "fixed") == 0 &&
	      json_real_value(json_object_get(stop, "level")) == 0.95 &&
	      !json_object_get(stop, "target_rel_ci") && !json_object_get(stop, "max_iterations"));
	/* the host clock's method names no CUPTI span; the GPU's says what its spans cover */
	CHECK(json_object_get(method, "span_of") == NULL);
	CHECK(strstr(json_string_value(json_object_get(method, "value")), "CLOCK_MONOTONIC"));
	d.host = 0;
	json_t *gpu = gq_timing_results_json(&d, NULL);
	json_t *gpu_method = json_object_get(gpu, "method");
	CHECK(strcmp(json_string_value(json_object_get(gpu, "backend")), "cupti") == 0);
	CHECK_MSG(json_string_value(json_object_get(gpu_method, "span_of")) &&
	              !strcmp(json_string_value(json_object_get(gpu_method, "span_of")),
	                      "kernels, memsets and copies"),
	          "span_of: %s", json_string_value(json_object_get(gpu_method, "span_of")));
	CHECK(strstr(json_string_value(json_object_get(gpu_method, "value")),
	             "first start to last end of its kernels, memsets and copies"));
	json_decref(gpu);
	d.host = 1;
	/* timing to a precision: the rule, its target and cap */
	d.spec.max_iterations = 500;
	d.spec.target_rel_ci = 0.01;
	json_t *precise = gq_timing_results_json(&d, NULL);
	stop = json_object_get(json_object_get(precise, "method"), "stop");
	CHECK(strcmp(json_string_value(json_object_get(stop, "rule")), "precision") == 0 &&
	      json_real_value(json_object_get(stop, "target_rel_ci")) == 0.01 &&
	      json_integer_value(json_object_get(stop, "max_iterations")) == 500);
	json_decref(precise);
	json_t *sum = json_object_get(t, "summary");
	CHECK(json_integer_value(json_object_get(sum, "points_ok")) == 1 &&
	      json_integer_value(json_object_get(sum, "points_error")) == 1 &&
	      json_integer_value(json_object_get(sum, "points_pending")) == 1 &&
	      json_integer_value(json_object_get(sum, "worker_failures")) == 1);
	json_decref(t);
	gq_timing_data_free(&d);
	gq_protocol_free(&proto);
	return gq_check_exit("test_timing_results");
}
