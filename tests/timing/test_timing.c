/* test_timing.c: the timing engine on the host backend (CLOCK_MONOTONIC spans, no GPU).
 *
 * Two workers (interleaved forward, blocked reverse) time two points — wgrad d_in 64, d_out 32,
 * T 65 (incumbent host:ref, candidate host:split) and fwd d_in 520, d_out 24, T 33 (no candidate
 * program) — for all three steps in both modes. Checked: points arrive in the worker's row order;
 * every eager series of incumbent, twin and (where it names a program) candidate holds all its
 * samples with 0 < busy ≤ span and the step's launch count as kernels; graph-mode and sota series
 * are unsupported with the reason; the allocation order follows the layout; a GPU program asked
 * of the host engine is unsupported, not an error. Timing to a precision, in both layouts: an
 * unreachable target runs every series to the cap, a loose one stops each at its minimum. */
#include <string.h>

#include "check.h"
#include "device.h"
#include "timing.h"

#define CONTAINS(hay, needle) (strstr((hay), (needle)) != NULL)

typedef struct sink_state {
	gq_timing_order order;
	int count;
} sink_state;

static void check_series(const gq_timing_point *pt, int arm, int mode, int step)
{
	const gq_timing_series *se = &pt->series[arm][mode][step];
	const char *what = gq_timing_arm_name((gq_timing_arm)arm);
	if (arm == GQ_TIMING_ARM_CANDIDATE && pt->problem.op != GQ_OP_WGRAD) {
		CHECK(!se->requested && CONTAINS(se->message, "not requested"));
		return;
	}
	if (mode == GQ_MODE_GRAPH || arm == GQ_TIMING_ARM_SOTA) {
		CHECK_MSG(se->status == GQ_ERR_UNSUPPORTED && !se->requested, "%s %s: %d %s", what,
		          gq_timing_mode_name((gq_timing_mode)mode), se->status, se->message);
		CHECK_MSG(CONTAINS(se->message,
		                   arm == GQ_TIMING_ARM_SOTA ? "GPUs only" : "eager launches only"),
		          "%s", se->message);
		return;
	}
	CHECK_MSG(se->requested && se->status == GQ_OK, "%s %s: %s", what,
	          gq_timing_step_name((gq_timing_step)step), se->message);
	if (se->status != GQ_OK)
		return;
	int n = step == GQ_STEP_OP ? 7 : 3;
	int launches = step == GQ_STEP_OP ? 1 : step == GQ_STEP_BWD ? 2 : 4;
	CHECK_MSG(se->count == n, "%s: %d samples", what, se->count);
	CHECK_MSG(se->kernels == launches, "%s %s: %d kernels", what,
	          gq_timing_step_name((gq_timing_step)step), se->kernels);
	for (int i = 0; i < se->count; i++)
		CHECK(se->busy_ns[i] > 0 && se->busy_ns[i] <= se->span_ns[i]);
}

static gq_status sink(void *user, const gq_timing_point *pt, gq_error *err)
{
	(void)err;
	sink_state *st = user;
	int expect = st->order == GQ_ORDER_FORWARD ? st->count : 1 - st->count;
	CHECK_MSG(pt->index == expect, "point %d arrived, expected %d", pt->index, expect);
	CHECK(pt->reverse_allocation == (st->order == GQ_ORDER_REVERSE));
	st->count++;
	for (int a = 0; a < GQ_TIMING_ARM_COUNT; a++)
		for (int m = 0; m < GQ_MODE_COUNT; m++)
			for (int s = 0; s < GQ_STEP_COUNT; s++)
				check_series(pt, a, m, s);
	const gq_timing_series *full =
	    &pt->series[GQ_TIMING_ARM_INCUMBENT][GQ_MODE_EAGER][GQ_STEP_2FWD_BWD];
	CHECK_MSG(
	    CONTAINS(full->programs, "fwd=host:ref fwd=host:ref dgrad=host:ref wgrad=host:ref"),
	    "%s", full->programs);
	return GQ_OK;
}

static void run_worker(gq_timing_layout layout, gq_timing_order order)
{
	gq_device dev;
	gq_error err;
	gq_error_clear(&err);
	CHECK(gq_device_open("host", &dev, &err) == GQ_OK);
	gq_timing_config cfg;
	gq_timing_config_init(&cfg);
	cfg.warmup = 1;
	cfg.iterations = 7;
	cfg.groups = 3;
	cfg.steps = GQ_TIMING_STEP_OP | GQ_TIMING_STEP_BWD | GQ_TIMING_STEP_2FWD_BWD;
	cfg.layout = layout;
	cfg.order = order;
	for (int op = GQ_OP_FWD; op <= GQ_OP_WGRAD; op++)
		cfg.programs[GQ_ARM_INCUMBENT][op] = "host:ref";
	cfg.programs[GQ_ARM_CANDIDATE][GQ_OP_WGRAD] = "host:split";
	const gq_problem points[2] = {{.op = GQ_OP_WGRAD,
	                               .d_in = 64,
	                               .d_out = 32,
	                               .t = 65,
	                               .in_dtype = GQ_DTYPE_BF16,
	                               .out_dtype = GQ_DTYPE_FP32},
	                              {.op = GQ_OP_FWD,
	                               .d_in = 520,
	                               .d_out = 24,
	                               .t = 33,
	                               .in_dtype = GQ_DTYPE_BF16,
	                               .out_dtype = GQ_DTYPE_BF16}};
	gq_timing_engine *e = NULL;
	CHECK_MSG(gq_timing_engine_init(&dev, &cfg, &e, &err) == GQ_OK, "%s", err.message);
	if (!e)
		return;
	CHECK(gq_timing_engine_is_host(e));
	sink_state st = {.order = order};
	CHECK_MSG(gq_timing_run_points(e, points, 2, sink, &st, &err) == GQ_OK, "%s", err.message);
	CHECK(st.count == 2);

	/* A GPU program asked of the host engine: unsupported, with the reason. */
	gq_timing_config gpu = cfg;
	gpu.programs[GQ_ARM_INCUMBENT][GQ_OP_WGRAD] = "cublas:default";
	gq_timing_engine *g = NULL;
	CHECK(gq_timing_engine_init(&dev, &gpu, &g, &err) == GQ_OK);
	gq_timing_point pt;
	CHECK(gq_timing_run_point(g, &points[0], &pt, &err) == GQ_OK);
	const gq_timing_series *se = &pt.series[GQ_TIMING_ARM_INCUMBENT][GQ_MODE_EAGER][GQ_STEP_OP];
	CHECK_MSG(se->status == GQ_ERR_UNSUPPORTED && CONTAINS(se->message, "runs on the GPU"),
	          "%d %s", se->status, se->message);
	gq_timing_point_free(&pt);
	gq_timing_engine_free(g);

	/* Programs set per point (a points[] entry's own candidate): the next point's candidate
	 * arm runs them, and an op the candidate leaves out keeps the incumbent's. */
	const char *arms[GQ_ARM_COUNT][GQ_OP_COUNT] = {{NULL}};
	for (int op = GQ_OP_FWD; op <= GQ_OP_WGRAD; op++)
		arms[GQ_ARM_INCUMBENT][op] = "host:ref";
	arms[GQ_ARM_CANDIDATE][GQ_OP_WGRAD] = "host:wrong:5";
	gq_timing_engine_set_programs(e, arms);
	CHECK(gq_timing_run_point(e, &points[0], &pt, &err) == GQ_OK);
	se = &pt.series[GQ_TIMING_ARM_CANDIDATE][GQ_MODE_EAGER][GQ_STEP_OP];
	CHECK_MSG(se->status == GQ_OK && !strcmp(se->programs, "wgrad=host:wrong:5"), "%d %s",
	          se->status, se->programs);
	se = &pt.series[GQ_TIMING_ARM_CANDIDATE][GQ_MODE_EAGER][GQ_STEP_BWD];
	CHECK_MSG(!strcmp(se->programs, "dgrad=host:ref wgrad=host:wrong:5"), "%s", se->programs);
	gq_timing_point_free(&pt);
	/* without a candidate for the point's op, the point has no candidate arm */
	arms[GQ_ARM_CANDIDATE][GQ_OP_WGRAD] = NULL;
	gq_timing_engine_set_programs(e, arms);
	CHECK(gq_timing_run_point(e, &points[0], &pt, &err) == GQ_OK);
	CHECK(!pt.series[GQ_TIMING_ARM_CANDIDATE][GQ_MODE_EAGER][GQ_STEP_OP].requested);
	gq_timing_point_free(&pt);
	gq_timing_engine_free(e);
}

/* Timing to a precision on the host engine, steps op and bwd of the wgrad point, incumbent, twin
 * and candidate. A target no host series can reach (± 1e-9: half the samples within a fraction
 * of a nanosecond) runs every series from its minimum through the rounds 10, 13, 17, 22 to the
 * cap of 23 exactly; a target of ± 50 % (the median's interval [x₍₆₎, x₍₁₅₎] of 20 samples as
 * wide as the median itself: six preempted launches among twenty) stops each at its minimum. */
static void run_precision(gq_timing_layout layout, int least, int cap, double target, int expect)
{
	gq_device dev;
	gq_error err;
	gq_error_clear(&err);
	CHECK(gq_device_open("host", &dev, &err) == GQ_OK);
	gq_timing_config cfg;
	gq_timing_config_init(&cfg);
	cfg.warmup = 1;
	cfg.iterations = cfg.groups = least;
	cfg.max_iterations = cap;
	cfg.target_rel_ci = target;
	cfg.steps = GQ_TIMING_STEP_OP | GQ_TIMING_STEP_BWD;
	cfg.layout = layout;
	for (int op = GQ_OP_FWD; op <= GQ_OP_WGRAD; op++)
		cfg.programs[GQ_ARM_INCUMBENT][op] = "host:ref";
	cfg.programs[GQ_ARM_CANDIDATE][GQ_OP_WGRAD] = "host:split";
	const gq_problem point = {.op = GQ_OP_WGRAD,
	                          .d_in = 64,
	                          .d_out = 32,
	                          .t = 65,
	                          .in_dtype = GQ_DTYPE_BF16,
	                          .out_dtype = GQ_DTYPE_FP32};
	gq_timing_engine *e = NULL;
	CHECK_MSG(gq_timing_engine_init(&dev, &cfg, &e, &err) == GQ_OK, "%s", err.message);
	if (!e)
		return;
	gq_timing_point pt;
	CHECK_MSG(gq_timing_run_point(e, &point, &pt, &err) == GQ_OK, "%s", err.message);
	const int arms[3] = {GQ_TIMING_ARM_INCUMBENT, GQ_TIMING_ARM_TWIN, GQ_TIMING_ARM_CANDIDATE};
	for (int a = 0; a < 3; a++)
		for (int st = GQ_STEP_OP; st <= GQ_STEP_BWD; st++) {
			const gq_timing_series *se = &pt.series[arms[a]][GQ_MODE_EAGER][st];
			CHECK_MSG(se->status == GQ_OK && se->count == expect,
			          "%s %s %s, least %d, cap %d, target %g: %d samples (expected %d) %s",
			          gq_timing_layout_name(layout), gq_timing_arm_name(arms[a]),
			          gq_timing_step_name(st), least, cap, target, se->count, expect,
			          se->message);
			for (int i = 0; i < se->count && se->status == GQ_OK; i++)
				CHECK(se->span_ns[i] > 0 && se->busy_ns[i] <= se->span_ns[i]);
		}
	gq_timing_point_free(&pt);
	gq_timing_engine_free(e);
}

int main(void)
{
	run_worker(GQ_LAYOUT_INTERLEAVED, GQ_ORDER_FORWARD);
	run_worker(GQ_LAYOUT_BLOCKED, GQ_ORDER_REVERSE);
	for (int layout = 0; layout < GQ_LAYOUT_COUNT; layout++) {
		run_precision((gq_timing_layout)layout, 10, 23, 1e-9, 23);
		run_precision((gq_timing_layout)layout, 20, 400, 0.5, 20);
	}
	return gq_check_exit("test_timing");
}
